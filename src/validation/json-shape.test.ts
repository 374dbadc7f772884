import { describe, expect, it } from "vitest";
import { jsonShapeProblem, MAX_JSON_OBJECT_KEYS } from "./json-shape.ts";
import { MAX_JSON_DEPTH } from "./json-depth.ts";

describe("the shape of a JSON text, read before it is parsed", () => {
  it("passes bodies within the limits, whatever their strings hold", () => {
    const body = { model: "m", messages: [{ role: "user", content: 'braces { [ , ] } and "quotes" \\ and \\\\' }], list: Array.from({ length: 50_000 }, (_, index) => index) };
    expect(jsonShapeProblem(JSON.stringify(body))).toBeNull();
    expect(jsonShapeProblem(JSON.stringify({ keys: Object.fromEntries(Array.from({ length: MAX_JSON_OBJECT_KEYS }, (_, index) => [`k${index}`, index])) }))).toBeNull();
  });

  it("refuses nesting past the depth limit, and an object past the key limit", () => {
    expect(jsonShapeProblem("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonShapeProblem("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toMatch(/nested deeper than 128/);
    const keys = Object.fromEntries(Array.from({ length: MAX_JSON_OBJECT_KEYS + 1 }, (_, index) => [`k${index}`, index]));
    expect(jsonShapeProblem(JSON.stringify({ a: { metadata: keys } }))).toMatch(/more than 10000 keys/);
    // Commas inside strings, or in a nested array, are not the object's keys.
    expect(jsonShapeProblem(JSON.stringify({ text: ",".repeat(MAX_JSON_OBJECT_KEYS * 2), list: Array(MAX_JSON_OBJECT_KEYS * 2).fill(0) }))).toBeNull();
  });

  it("leaves text that is not JSON to the parser", () => {
    expect(jsonShapeProblem('{"open": "never closed')).toBeNull();
    expect(jsonShapeProblem("]]]}}}")).toBeNull();
  });
});
