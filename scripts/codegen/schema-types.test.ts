import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { untypedSchemas, withoutRestatedTypes } from "./schema-types.ts";

const block = { type: "object", properties: { type: { type: "string" } } };

function documentWith(schemas: Record<string, unknown>, paths: unknown = {}) {
  return { paths, components: { schemas: { Block: block, ...schemas } } } as never;
}

describe("schema types", () => {
  it("lists each schema with neither a type nor a $ref, nested or inline in an operation", () => {
    const document = documentWith(
      {
        Content: { type: "object", properties: { content: { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/components/schemas/Block" } }] } } },
        Anything: { description: "any JSON" },
      },
      { "/x": { get: { parameters: [{ name: "q", in: "query", schema: { oneOf: [{ type: "string" }, { type: "integer" }] } }] } } },
    );
    expect(untypedSchemas(document)).toEqual(["components/schemas/Content/properties/content", "components/schemas/Anything", "paths//x/get/parameters/0/schema"]);
  });

  it("finds none in the gateway's document", () => {
    expect(untypedSchemas(parse(readFileSync("openapi/gateway.yaml", "utf8")))).toEqual([]);
  });

  it("drops a type that the options or any JSON only restate, and keeps one that narrows", () => {
    const union = { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/components/schemas/Block" } }] };
    const nullable = { anyOf: [{ $ref: "#/components/schemas/Block" }, { type: "null" }] };
    const document = documentWith({
      Union: { type: ["array", "string"], ...union },
      Nullable: { type: ["object", "null"], ...nullable },
      Both: { type: "object", allOf: [{ $ref: "#/components/schemas/Block" }, { type: "object", required: ["type"] }] },
      Any: { type: ["string", "number", "boolean", "object", "array", "null"], description: "any JSON" },
      Narrower: { type: "string", ...union },
      Required: { type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }] },
    });
    const { components } = withoutRestatedTypes(document) as { components: { schemas: Record<string, unknown> } };
    expect(components.schemas.Union).toEqual(union);
    expect(components.schemas.Nullable).toEqual(nullable);
    expect(components.schemas.Both).not.toHaveProperty("type");
    expect(components.schemas.Any).toEqual({ description: "any JSON" });
    expect(components.schemas.Narrower).toEqual({ type: "string", ...union });
    expect(components.schemas.Required).toHaveProperty("type", "object");
    expect(components.schemas.Block).toEqual(block);
    // The document itself is left as it was.
    expect((document as { components: { schemas: { Union: object } } }).components.schemas.Union).toHaveProperty("type");
  });
});
