import ts from "typescript";
import { describe, expect, it } from "vitest";
import { z } from "@hono/zod-openapi";
import * as runtime from "../../src/validation/check-runtime.ts";
import type { JsonSchema } from "./document.ts";
import { CheckWriter } from "./check-code.ts";
import { zodSource } from "./zod-schemas.ts";

/** zod source as codegen writes it, which may hold TypeScript (json-schema-to-zod's `oneOf`), as JavaScript. */
const javascript = (source: string): string => ts.transpileModule(`export default ${source};`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText.replace(/^export default /m, "return ").replace(/export \{\};?\s*$/m, "");

/** The check written for a schema, and the zod schema codegen writes for the same schema. */
function both(schema: JsonSchema, components: Record<string, JsonSchema> = {}) {
  const writer = new CheckWriter(components);
  const name = writer.functionFor(schema);
  const helpers = Object.keys(runtime);
  const check = new Function(...helpers, `${writer.source()}\nreturn ${name};`)(...Object.values(runtime)) as runtime.ValueCheck;
  const zods: Record<string, z.ZodType> = {};
  for (const [component, definition] of Object.entries(components)) {
    zods[`${component}Schema`] = new Function("z", ...Object.keys(zods), javascript(zodSource(definition)))(z, ...Object.values(zods));
  }
  const zod = new Function("z", ...Object.keys(zods), javascript(zodSource(schema)))(z, ...Object.values(zods)) as z.ZodType;
  return { run: (value: unknown) => runtime.runCheck(check, value), zod };
}

type Verdict = "passes" | "refuses" | "zod decides";

/**
 * What the check says of each value, after checking it against zod: a pass is zod's pass with
 * the value unchanged, a final refusal zod's refusal too.
 */
function verdicts(schema: JsonSchema, values: unknown[], components?: Record<string, JsonSchema>): Verdict[] {
  const { run, zod } = both(schema, components);
  return values.map((value) => {
    const failures = run(value);
    const parsed = zod.safeParse(structuredClone(value));
    if (failures === null) {
      expect({ value, parsed }).toEqual({ value, parsed: { success: true, data: value } });
      return "passes";
    }
    if (failures[failures.length - 1]!.final) {
      expect({ value, zod: parsed.success }).toEqual({ value, zod: false });
      return "refuses";
    }
    return "zod decides";
  });
}

describe("request checks written from the document", () => {
  it("leave to zod an object it would strip of unknown keys, refuse them where it refuses them", () => {
    const stripped = { type: "object", properties: { a: { type: "string" } } };
    expect(verdicts(stripped, [{ a: "x" }, { a: "x", extra: 1 }, { a: 1 }, {}])).toEqual(["passes", "zod decides", "refuses", "passes"]);
    const closed = { ...stripped, additionalProperties: false };
    expect(verdicts(closed, [{ a: "x" }, { a: "x", extra: 1 }])).toEqual(["passes", "refuses"]);
    const open = { ...stripped, additionalProperties: true };
    expect(verdicts(open, [{ a: "x", extra: { y: [1] } }, { a: 1 }, JSON.parse('{"__proto__": {"a": 1}}')])).toEqual(["passes", "refuses", "zod decides"]);
  });

  it("read an object without properties as zod's record: any keys, `required` and `minProperties` unread", () => {
    expect(verdicts({ type: "object", required: ["a"], minProperties: 1 }, [{}, { b: [1] }, []])).toEqual(["passes", "passes", "refuses"]);
    expect(verdicts({ type: "object", additionalProperties: { type: "string", maxLength: 3 } }, [{ a: "x" }, { a: "long" }, { a: 1 }])).toEqual(["passes", "refuses", "refuses"]);
  });

  it("leave to zod an absent property it fills with a default, and check a present one", () => {
    const schema = { type: "object", additionalProperties: false, properties: { period: { type: "string", enum: ["none", "weekly"], default: "none" } } };
    expect(verdicts(schema, [{}, { period: "weekly" }, { period: "daily" }])).toEqual(["zod decides", "passes", "refuses"]);
    // Behind a $ref the default is the component's: zod fills it in for an optional property too.
    const components = { Period: { type: "string", enum: ["none", "weekly"], default: "none" } };
    const referred = { type: "object", additionalProperties: false, properties: { period: { $ref: "#/components/schemas/Period" } } };
    expect(verdicts(referred, [{}, { period: "weekly" }], components)).toEqual(["zod decides", "passes"]);
  });

  it("keep integers in zod's safe range and numbers finite, with the document's bounds", () => {
    expect(verdicts({ type: "integer", minimum: 1 }, [5, 2 ** 53, 1e20, 0, 1.5, "5"])).toEqual(["passes", "refuses", "refuses", "refuses", "refuses", "refuses"]);
    expect(verdicts({ type: "number", exclusiveMinimum: 0, maximum: 1 }, [0.5, 0, 1, 1.01, JSON.parse("1e400")])).toEqual(["passes", "refuses", "passes", "refuses", "refuses"]);
    expect(verdicts({ type: ["integer", "number"] }, [1, 1.5, "1"])).toEqual(["passes", "passes", "refuses"]);
  });

  it("count string lengths in code points and match patterns without the u flag, as zod does", () => {
    expect(verdicts({ type: "string", maxLength: 2 }, ["😀😀", "😀😀😀", "ab", "abc"])).toEqual(["passes", "refuses", "passes", "refuses"]);
    expect(verdicts({ type: "string", minLength: 2 }, ["😀", "😀😀", "a", "\ud800\ud800"])).toEqual(["refuses", "passes", "refuses", "passes"]);
    expect(verdicts({ type: "string", pattern: "^.$" }, ["a", "😀"])).toEqual(["passes", "refuses"]);
  });

  it("check a URL as zod does, and leave to zod one it would trim; other formats are zod's", () => {
    expect(verdicts({ type: "string", format: "uri" }, ["https://example.com/v1", "not a url", " https://example.com", "https://exa\tmple.com"])).toEqual(["passes", "refuses", "zod decides", "zod decides"]);
    expect(verdicts({ type: "string", format: "uuid" }, ["6f1f4a0e-4b7e-4c1a-9a53-0e0b2f6d8c11", 5])).toEqual(["zod decides", "refuses"]);
    expect(verdicts({ type: "string", format: "int32" }, ["any"])).toEqual(["passes"]);
    expect(verdicts({ allOf: [{ type: "object", additionalProperties: true }] }, [{}])).toEqual(["zod decides"]);
  });

  it("follow json-schema-to-zod where it reads less than JSON Schema: the first keyword that names a kind decides", () => {
    // An enum is a z.enum whatever its type says; an anyOf beside a type is the union alone.
    expect(verdicts({ type: "string", enum: ["a", "b"], maxLength: 0 }, ["a", "c"])).toEqual(["passes", "refuses"]);
    expect(verdicts({ type: "string", anyOf: [{ type: "integer" }, { type: "null" }] }, [1, null, "s"])).toEqual(["passes", "passes", "refuses"]);
    expect(verdicts({ description: "anything" }, [1, "x", null, { a: [] }])).toEqual(["passes", "passes", "passes", "passes"]);
  });

  it("accept a union's option only where zod would not have stopped at an earlier one", () => {
    const strip = { type: "object", properties: { a: { type: "string" } } };
    const wide = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, additionalProperties: false };
    // zod would take the first option and drop `b`: zod decides.
    expect(verdicts({ anyOf: [strip, wide] }, [{ a: "x", b: "y" }, { a: "x" }, { a: 1 }])).toEqual(["zod decides", "passes", "refuses"]);
    expect(verdicts({ anyOf: [wide, strip] }, [{ a: "x", b: "y" }, { a: "x" }])).toEqual(["passes", "passes"]);
    // Options of other kinds refuse for sure: the value's kind picks the option.
    expect(verdicts({ anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }, { type: "null" }] }, ["s", ["a"], [1], null, 1])).toEqual(["passes", "passes", "refuses", "passes", "refuses"]);
    // `X or null` is X.nullable(), whatever the order in the document.
    const budget = { type: "object", additionalProperties: false, properties: { period: { type: "string", default: "none" } } };
    expect(verdicts({ anyOf: [{ $ref: "#/components/schemas/Budget" }, { type: "null" }] }, [null, { period: "x" }, {}], { Budget: budget })).toEqual(["passes", "passes", "zod decides"]);
  });

  it("count a oneOf's options as zod's refinement does, the value kept as sent", () => {
    const schema = { oneOf: [{ type: ["array", "null"], items: { type: "string" } }, { type: "object", additionalProperties: true, properties: { tool_names: { type: "array", items: { type: "string" } } } }] };
    expect(verdicts(schema, [["a"], null, { tool_names: ["a"] }, { tool_names: [1] }, [1], "a"])).toEqual(["passes", "passes", "passes", "refuses", "refuses", "refuses"]);
    // Two options that both pass: zod refuses.
    expect(verdicts({ oneOf: [{ type: "string" }, { type: "string", maxLength: 3 }] }, ["ab", "abcd"])).toEqual(["refuses", "passes"]);
    const optional = { type: "object", additionalProperties: true, properties: { allowed: schema } };
    expect(verdicts(optional, [{}, { allowed: "x" }])).toEqual(["passes", "refuses"]);
  });

  it("check maxProperties as zod's generated refinement does", () => {
    expect(verdicts({ type: ["object", "null"], maxProperties: 2, additionalProperties: { type: "string" } }, [{ a: "x" }, { a: "x", b: "y", c: "z" }, null, []])).toEqual(["passes", "refuses", "passes", "refuses"]);
  });

  it("report where a check stopped, deepest first, and the rule that decided last", () => {
    const components = { Part: { type: "object", required: ["type"], additionalProperties: true, properties: { type: { type: "string" } } } };
    const { run } = both({ type: "object", additionalProperties: true, properties: { content: { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/components/schemas/Part" } }, { type: "null" }] } } }, components);
    expect(run({ content: [{ type: "a" }, { type: 1 }] })).toEqual([{ path: ["content", 1, "type"], keyword: "type", params: { type: "string" }, final: true }]);
    expect(run({ content: [{}] })).toEqual([{ path: ["content", 0], keyword: "required", params: { missingProperty: "type" }, final: true }]);
    const { run: union } = both({ anyOf: [{ type: "object", required: ["a"], additionalProperties: true, properties: { a: { type: "string" } } }, { type: "object", required: ["b"], additionalProperties: true, properties: { b: { type: "object", required: ["c"], additionalProperties: true, properties: { c: { type: "string" } } } } }] });
    expect(union({ b: {} })).toEqual([
      { path: ["b"], keyword: "required", params: { missingProperty: "c" }, final: true },
      { path: [], keyword: "anyOf", params: {}, final: true },
    ]);
  });
});
