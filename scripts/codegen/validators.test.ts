import { describe, expect, it } from "vitest";
import { z } from "@hono/zod-openapi";
import type { JsonSchema } from "./document.ts";
import { ajvSchema, createAjv, type CheckTraits } from "./validators.ts";
import { zodSource } from "./zod-schemas.ts";

/** The check compiled from a schema, and the zod schema codegen generates from the same schema. */
function both(schema: JsonSchema, components: Record<string, JsonSchema> = {}) {
  const ajv = createAjv();
  const traits = new Map<string, CheckTraits>();
  const defs: Record<string, JsonSchema> = {};
  const zods: Record<string, z.ZodType> = {};
  for (const [name, component] of Object.entries(components)) {
    const translated = ajvSchema(component, traits);
    traits.set(name, { preserving: translated.preserving, exact: translated.exact });
    defs[name] = translated.schema;
    zods[`${name}Schema`] = new Function("z", ...Object.keys(zods), `return ${zodSource(component)};`)(z, ...Object.values(zods));
  }
  ajv.addSchema({ $id: "components", $defs: defs });
  const translated = ajvSchema(schema, traits);
  const check = ajv.compile(translated.schema) as (value: unknown) => boolean;
  const zod = new Function("z", ...Object.keys(zods), `return ${zodSource(schema)};`)(z, ...Object.values(zods)) as z.ZodType;
  return { check, zod, exact: translated.exact };
}

/** Where the check is exact, its refusal is final: zod refuses every value it refuses. */
function expectExact(schema: JsonSchema, values: unknown[], components?: Record<string, JsonSchema>): boolean[] {
  const { check, zod, exact } = both(schema, components);
  expect(exact).toBe(true);
  return values.map((value) => {
    const accepted = check(value);
    expect({ value, zod: zod.safeParse(structuredClone(value)).success }).toEqual({ value, zod: accepted });
    return accepted;
  });
}

/** The promise the runtime relies on: what the check accepts, zod accepts and returns unchanged. */
function expectSound(schema: JsonSchema, values: unknown[], components?: Record<string, JsonSchema>): boolean[] {
  const { check, zod } = both(schema, components);
  return values.map((value) => {
    const accepted = check(value);
    if (accepted) expect({ value, parsed: zod.safeParse(structuredClone(value)) }).toEqual({ value, parsed: { success: true, data: value } });
    return accepted;
  });
}

describe("request body checks compiled from the document", () => {
  it("close objects zod would strip, so a body with unknown keys goes to zod", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect(expectSound(schema, [{ a: "x" }, { a: "x", extra: 1 }])).toEqual([true, false]);
    const open = { type: "object", properties: { a: { type: "string" } }, additionalProperties: true };
    expect(expectSound(open, [{ a: "x", extra: { y: [1] } }, { a: 1 }])).toEqual([true, false]);
  });

  it("require properties zod would fill with their default", () => {
    const schema = { type: "object", additionalProperties: false, properties: { period: { type: "string", enum: ["none", "weekly"], default: "none" } } };
    expect(expectSound(schema, [{}, { period: "weekly" }, { period: "daily" }])).toEqual([false, true, false]);
  });

  it("keep integers in zod's safe range and numbers finite", () => {
    expect(expectSound({ type: "integer", minimum: 1 }, [5, 2 ** 53, 1e20, 0, 1.5])).toEqual([true, false, false, false, false]);
    expect(expectSound({ type: "number" }, [1.5, JSON.parse("1e400"), Number.NaN])).toEqual([true, false, false]);
  });

  it("count string lengths in code points and match patterns without the u flag, as zod does", () => {
    expect(expectSound({ type: "string", maxLength: 2 }, ["😀😀", "😀😀😀", "ab"])).toEqual([true, false, true]);
    expect(expectSound({ type: "string", pattern: "^.$" }, ["a", "😀"])).toEqual([true, false]);
  });

  it("leave formats, allOf and unknown keywords to zod", () => {
    expect(expectSound({ type: "string", format: "uuid" }, ["6f1f4a0e-4b7e-4c1a-9a53-0e0b2f6d8c11", "x"])).toEqual([false, false]);
    expect(expectSound({ allOf: [{ type: "object", additionalProperties: true }] }, [{}])).toEqual([false]);
    expect(expectSound({ type: "array", prefixItems: [{ type: "string" }] }, [["a"]])).toEqual([false]);
  });

  it("accept a union only where zod's first matching option returns the input unchanged", () => {
    const strip = { type: "object", properties: { a: { type: "string" } } };
    const wide = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, additionalProperties: false };
    // zod would take the first option and strip `b`: the union is zod's to judge.
    expect(expectSound({ anyOf: [strip, wide] }, [{ a: "x", b: "y" }, { a: "x" }])).toEqual([false, false]);
    expect(expectSound({ anyOf: [wide, strip] }, [{ a: "x", b: "y" }, { a: "x" }])).toEqual([true, true]);
    // `X or null` is X.nullable(): null is tried first, whatever the order in the document.
    const budget = { type: "object", additionalProperties: false, properties: { period: { type: "string", default: "none" } } };
    expect(expectSound({ anyOf: [{ $ref: "#/components/schemas/Budget" }, { type: "null" }] }, [null, { period: "x" }, {}], { Budget: budget })).toEqual([true, true, false]);
    expect(expectSound({ type: ["boolean", "null"] }, [true, null, "true"])).toEqual([true, true, false]);
  });

  it("say where a refusal is final: exact checks refuse what zod refuses, no more", () => {
    const metadata = { type: ["object", "null"], maxProperties: 2, additionalProperties: { type: "string", maxLength: 3 } };
    expect(expectExact(metadata, [{ a: "x" }, { a: "x", b: "y", c: "z" }, { a: "long" }, null, [], { a: 1 }])).toEqual([true, false, false, true, false, false]);
    const open = { type: "object", required: ["type"], additionalProperties: true, properties: { type: { type: "string" }, n: { type: "integer", minimum: 1 } } };
    expect(expectExact({ type: "array", minItems: 1, maxItems: 2, items: open }, [[{ type: "a" }], [], [{ type: "a" }, { type: 1 }], [{ n: 1 }], [{ type: "a", n: 0 }]])).toEqual([true, false, false, false, false]);
    // A oneOf of exact options is checked as one (zod's generated refinement, TypeScript, is compared in compiled-body.test.ts).
    const oneOf = ajvSchema({ oneOf: [{ type: ["array", "null"], items: { type: "string" } }, { type: "object", additionalProperties: true }] }, new Map());
    expect(oneOf).toMatchObject({ exact: true, preserving: true, schema: { oneOf: [{ type: ["array", "null"] }, { type: "object" }] } });
  });

  it("call a check inexact wherever zod strips, fills in or judges alone", () => {
    expect(both({ type: "object", properties: { a: { type: "string" } } }).exact).toBe(false);
    expect(both({ type: "object", additionalProperties: false, properties: { a: { type: "string", default: "x" } } }).exact).toBe(false);
    expect(both({ type: "string", format: "uuid" }).exact).toBe(false);
    expect(both({ type: "object", minProperties: 1, additionalProperties: true }).exact).toBe(false);
    expect(ajvSchema({ oneOf: [{ type: "string", format: "uuid" }, { type: "integer" }] }, new Map())).toMatchObject({ exact: false, schema: { not: {} } });
    expect(both({ type: "array", items: { $ref: "#/components/schemas/Closed" } }, { Closed: { type: "object", properties: { a: { type: "string" } } } }).exact).toBe(false);
  });
});
