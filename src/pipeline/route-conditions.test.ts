import { describe, expect, it } from "vitest";
import { compileQuery, type RouteFacts } from "./route-conditions.ts";

const facts: RouteFacts = { metadata: { plan: "paid", region: "eu" }, params: { model: "gpt-4o", max_tokens: 500, nested: { a: [1, 2] } }, route: "createChatCompletion" };

function matches(query: Record<string, unknown>): boolean {
  const compiled = compileQuery(query, "q");
  if (!compiled.ok) throw compiled.error;
  return compiled.value(facts);
}

describe("route conditions", () => {
  it("compares with each operator", () => {
    expect(matches({ "metadata.plan": "paid" })).toBe(true);
    expect(matches({ "metadata.plan": { $ne: "paid" } })).toBe(false);
    expect(matches({ "params.max_tokens": { $gt: 499, $lte: 500 } })).toBe(true);
    expect(matches({ "params.max_tokens": { $lt: 500 } })).toBe(false);
    expect(matches({ "params.max_tokens": { $gte: "500" } })).toBe(false);
    expect(matches({ "metadata.region": { $in: ["eu", "us"] } })).toBe(true);
    expect(matches({ "metadata.region": { $nin: ["eu"] } })).toBe(false);
    expect(matches({ "params.model": { $regex: "^gpt-4" } })).toBe(true);
    expect(matches({ "params.nested.a": [1, 2] })).toBe(true);
    expect(matches({ route: "createEmbedding" })).toBe(false);
    expect(matches({ "metadata.missing": { $eq: "x" } })).toBe(false);
    expect(matches({ "metadata.missing": { $ne: "x" } })).toBe(true);
  });

  it("compares objects and arrays by value, whatever their key order", () => {
    expect(matches({ "params.nested": { a: [1, 2] } })).toBe(true);
    expect(matches({ "params.nested": { $eq: { a: [1, 2] } } })).toBe(true);
    expect(matches({ "params.nested": { $in: [[], { a: [2, 1] }, { a: [1, 2], b: 1 }] } })).toBe(false);
    expect(matches({ "params.nested.a": { $in: [{ 0: 1, 1: 2 }, [1]] } })).toBe(false);
    expect(matches({ "params.nested.a": { $nin: [[1, 2]] } })).toBe(false);
    const compiled = compileQuery({ "params.o": { b: [1, { c: null }], a: "x" } }, "q");
    if (!compiled.ok) throw compiled.error;
    expect(compiled.value({ ...facts, params: { o: { a: "x", b: [1, { c: null }] } } })).toBe(true);
    expect(compiled.value({ ...facts, params: { o: { a: "x", b: [1, { c: 0 }] } } })).toBe(false);
  });

  it("reads list items by index, and a $regex only the first 4,096 characters of a field", () => {
    const compiled = compileQuery({ "params.messages.1.role": "assistant", "params.note": { $regex: "z$" } }, "q");
    if (!compiled.ok) throw compiled.error;
    const messages = [{ role: "user" }, { role: "assistant" }];
    expect(compiled.value({ ...facts, params: { messages, note: "abz" } })).toBe(true);
    expect(compiled.value({ ...facts, params: { messages, note: `${"a".repeat(5000)}z` } })).toBe(false);
    expect(matches({ "params.nested.a.5": { $eq: 1 } })).toBe(false);
  });

  it("combines with $and and $or, and an empty query matches", () => {
    expect(matches({ $and: [{ "metadata.plan": "paid" }, { "metadata.region": "eu" }] })).toBe(true);
    expect(matches({ $or: [{ "metadata.plan": "free" }, { "params.model": "gpt-4o" }] })).toBe(true);
    expect(matches({ $or: [{ "metadata.plan": "free" }, { $and: [{ route: "x" }] }] })).toBe(false);
    expect(matches({})).toBe(true);
  });

  it("reads only own fields, so a query cannot reach an object's prototype", () => {
    expect(matches({ "params.constructor": { $ne: null } })).toBe(true);
    expect(matches({ "metadata.toString": { $eq: undefined } })).toBe(true);
    expect(matches({ "params.__proto__.polluted": "x" })).toBe(false);
  });

  it("refuses unknown operators, fields and patterns with the place at fault", () => {
    const problem = (query: Record<string, unknown>) => {
      const compiled = compileQuery(query, "q");
      return compiled.ok ? null : compiled.error.param;
    };
    expect(problem({ $xor: [] })).toBe("q.$xor");
    expect(problem({ "metadata.a": { $exists: true } })).toBe("q.metadata.a.$exists");
    expect(problem({ "params.a": { $regex: "(?=x)" } })).toBe("q.params.a.$regex");
    expect(problem({ "params.a": { $in: "x" } })).toBe("q.params.a.$in");
    expect(problem({ $and: [] })).toBe("q.$and");
    expect(problem({ "params.": 1 })).toBe("q.params.");
    let deep: Record<string, unknown> = { route: "x" };
    for (let i = 0; i < 12; i += 1) deep = { $and: [deep] };
    expect(problem(deep)).toMatch(/^q(\.\$and\.0)+/);
  });
});
