import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { jsonSchema } from "./json_schema.ts";

const schema = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 }, email: { type: "string", format: "email" } },
  required: ["name", "age"],
};
const run = (text: string, s: Record<string, unknown> = schema) =>
  runSync(jsonSchema, { schema: s }, { text });

describe("json_schema", () => {
  it("passes for a whole-text JSON that validates", () => {
    expect(run('{"name": "Ada", "age": 36}')).toMatchObject({ verdict: true, data: { source: "text" } });
  });

  it("validates the JSON of a fence or embedded in prose", () => {
    expect(run('Here you go:\n```json\n{"name": "Ada", "age": 36}\n```')).toMatchObject({ verdict: true, data: { source: "fence" } });
    expect(run('Result: {"name": "Ada", "age": 36} done')).toMatchObject({ verdict: true, data: { source: "embedded" } });
  });

  it("fails naming the path and rule, without echoing values", () => {
    const outcome = run('{"name": "Ada", "age": -4, "email": "secret-not-an-email"}');
    expect(outcome.verdict).toBe(false);
    expect(outcome.explanation).toContain("/age must be >= 0");
    expect(outcome.explanation).toContain("/email");
    expect(outcome.explanation).not.toContain("secret-not-an-email");
    expect(outcome.data?.errors).toEqual(expect.arrayContaining([{ path: "/age", message: "must be >= 0" }]));
  });

  it("fails when there is no JSON at all", () => {
    expect(run("I cannot answer in JSON.")).toMatchObject({ verdict: false, explanation: expect.stringContaining("no JSON") });
  });

  it("refuses an invalid schema, an unresolvable $ref and a non-object schema", () => {
    expect(jsonSchema.params.safeParse({ schema: { type: "nope" } }).success).toBe(false);
    expect(jsonSchema.params.safeParse({ schema: { $ref: "https://example.com/s.json" } }).success).toBe(false);
    expect(jsonSchema.params.safeParse({ schema: "object" }).success).toBe(false);
    expect(jsonSchema.params.safeParse({}).success).toBe(false);
  });

  it("answers a catastrophic schema pattern in milliseconds", () => {
    const started = performance.now();
    const outcome = run(JSON.stringify(`${"a".repeat(30)}!`), { type: "string", pattern: "^(a+)+$" });
    expect(outcome).toMatchObject({ verdict: false, explanation: expect.stringContaining("must match pattern") });
    expect(run(JSON.stringify("a".repeat(30)), { type: "string", pattern: "^(a+)+$" }).verdict).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("runs patternProperties keys on the same engine", () => {
    const s = { type: "object", patternProperties: { "^(a+)+$": { type: "integer" } } };
    const started = performance.now();
    expect(run(JSON.stringify({ [`${"a".repeat(30)}!`]: "x", aaa: 1 }), s).verdict).toBe(true);
    expect(run(JSON.stringify({ aaa: "x" }), s).verdict).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("refuses a schema whose pattern RE2 cannot compile, saying why", () => {
    for (const schema of [{ type: "string", pattern: "(a)\\1" }, { type: "object", patternProperties: { "a(?=b)": { type: "integer" } } }]) {
      const parsed = jsonSchema.params.safeParse({ schema });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("no backreferences or lookaround");
    }
  });

  it("refuses uniqueItems where it would compare items pairwise, and keeps it for scalar items", () => {
    for (const schema of [
      { type: "array", uniqueItems: true },
      { type: "array", uniqueItems: true, items: { type: "array" } },
      { type: "object", properties: { tags: { type: "array", uniqueItems: true, items: { type: ["string", "object"] } } } },
    ]) {
      const parsed = jsonSchema.params.safeParse({ schema });
      expect(parsed.success, JSON.stringify(schema)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("uniqueItems is only supported beside an items schema of scalar types");
    }
    const scalar = { type: "array", uniqueItems: true, items: { type: ["string", "integer"] } };
    expect(jsonSchema.params.safeParse({ schema: scalar }).success).toBe(true);
    const started = performance.now();
    const long = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => `item-${i}`));
    expect(run(long, scalar).verdict).toBe(true);
    expect(run(JSON.stringify(["a", "b", "a"]), scalar)).toMatchObject({ verdict: false, explanation: expect.stringContaining("duplicate items") });
    expect(performance.now() - started).toBeLessThan(500);
  });
});
