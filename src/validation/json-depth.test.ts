import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-depth.ts";

const nested = (levels: number): unknown => JSON.parse("[".repeat(levels) + "]".repeat(levels));

describe("nestedDeeperThan", () => {
  it("counts objects and arrays, not scalars", () => {
    expect(nestedDeeperThan("text", 0)).toBe(false);
    expect(nestedDeeperThan({ a: 1 }, 1)).toBe(false);
    expect(nestedDeeperThan({ a: [1] }, 1)).toBe(true);
    expect(nestedDeeperThan({ a: { b: [] } }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [] } }, 2)).toBe(true);
  });

  it("accepts the limit and refuses one level more", () => {
    expect(nestedDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it("reads the value under an own __proto__ key, as JSON.parse makes one", () => {
    expect(nestedDeeperThan(JSON.parse('{"__proto__": [[[]]]}'), 3)).toBe(true);
    expect(nestedDeeperThan(JSON.parse('{"__proto__": [[[]]]}'), 4)).toBe(false);
  });

  it("walks a value far deeper than any stack without overflowing", () => {
    expect(nestedDeeperThan(nested(200_000))).toBe(true);
    expect(nestedDeeperThan(nested(200_000), 300_000)).toBe(false);
  });
});
