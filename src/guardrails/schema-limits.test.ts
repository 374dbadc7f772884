import { describe, expect, it } from "vitest";
import { compileSchema } from "./schema-compiler.ts";
import { MAX_SCHEMA_BRANCHES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_OBJECTS, schemaLimitProblem } from "./schema-limits.ts";

const nestedProperties = (levels: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
};

describe("schemaLimitProblem", () => {
  it("refuses $ref loops that never descend into the value", () => {
    const loops: Record<string, unknown>[] = [
      { $ref: "#" },
      { definitions: { a: { $ref: "#/definitions/a" } }, $ref: "#/definitions/a" },
      { definitions: { a: { $ref: "#/definitions/b" }, b: { allOf: [{ $ref: "#/definitions/a" }] } }, properties: { x: { $ref: "#/definitions/a" } } },
      { anyOf: [{ type: "string" }, { not: { $ref: "#" } }] },
      { definitions: { "a/b": { if: { $ref: "#/definitions/a~1b" } } }, type: "object" },
    ];
    for (const schema of loops) expect(schemaLimitProblem(schema), JSON.stringify(schema)).toMatch(/leads back to itself/);
  });

  it("accepts recursion through properties and items (trees)", () => {
    const tree = { type: "object", properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#" } } } };
    expect(schemaLimitProblem(tree)).toBeNull();
    const compiled = compileSchema(tree);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(compiled.validate({ value: 1, children: [{ value: 2, children: [] }] })).toBe(true);
  });

  it("bounds depth, objects and branches", () => {
    expect(schemaLimitProblem(nestedProperties(MAX_SCHEMA_DEPTH / 2 - 1))).toBeNull();
    expect(schemaLimitProblem(nestedProperties(MAX_SCHEMA_DEPTH))).toMatch(`deeper than ${MAX_SCHEMA_DEPTH}`);
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: MAX_SCHEMA_OBJECTS }, (_, i) => [`p${i}`, { type: "string" }])) };
    expect(schemaLimitProblem(wide)).toMatch(`more than ${MAX_SCHEMA_OBJECTS} objects`);
    expect(schemaLimitProblem({ anyOf: Array.from({ length: MAX_SCHEMA_BRANCHES }, (_, i) => ({ const: i })) })).toBeNull();
    expect(schemaLimitProblem({ anyOf: Array.from({ length: MAX_SCHEMA_BRANCHES + 1 }, (_, i) => ({ const: i })) })).toMatch("anyOf lists more than");
    expect(schemaLimitProblem({ enum: Array.from({ length: MAX_SCHEMA_BRANCHES + 1 }, (_, i) => i) })).toMatch("enum lists more than");
  });

  it("keeps compiling the largest allowed schema well under a second", () => {
    const branches = { anyOf: Array.from({ length: MAX_SCHEMA_BRANCHES }, (_, i) => ({ type: "object", properties: { [`k${i}`]: { type: "string", pattern: "^[a-z]+$" } } })) };
    const started = performance.now();
    expect(compileSchema(branches).ok).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
