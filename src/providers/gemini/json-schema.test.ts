import { describe, expect, it } from "vitest";
import { toGeminiSchema } from "./json-schema.ts";

describe("JSON Schema for Gemini", () => {
  it("inlines local references, turns oneOf into anyOf and const into enum, and drops what Gemini refuses", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { Address: { type: "object", properties: { street: { type: "string", format: "email" } } } },
      properties: {
        home: { $ref: "#/$defs/Address", description: "Where they live" },
        kind: { const: "person" },
        born: { type: "string", format: "date-time" },
        age: { type: "integer", format: "int32", exclusiveMinimum: 0, enum: [1, 2] },
        contact: { oneOf: [{ type: "string" }, { type: "integer" }] },
        nickname: { anyOf: [{ type: "string" }, { type: "null" }] },
        tags: { type: "array", items: { type: "string" }, uniqueItems: true, examples: [["a"]] },
      },
      required: ["home", "missing"],
      additionalProperties: false,
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: "object",
      properties: {
        home: { description: "Where they live", type: "object", properties: { street: { type: "string" } } },
        kind: { type: "string", enum: ["person"] },
        born: { type: "string", format: "date-time" },
        age: { type: "integer", format: "int32" },
        contact: { anyOf: [{ type: "string" }, { type: "integer" }] },
        nickname: { type: "string", nullable: true },
        tags: { type: "array", items: { type: "string" }, example: ["a"] },
      },
      required: ["home"],
    });
  });

  it("merges allOf and cuts recursive references", () => {
    const schema = {
      definitions: { Node: { type: "object", properties: { next: { $ref: "#/definitions/Node" } } } },
      allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { $ref: "#/definitions/Node" } } }],
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "object", properties: { next: {} } } },
      required: ["a"],
    });
  });
});
