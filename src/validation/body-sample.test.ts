import { describe, expect, it } from "vitest";
import { sampleOf, type SampleLimits } from "./body-sample.ts";

const LIMITS: SampleLimits = { items: 2, keys: 2, values: 50 };

describe("the sample of a refused body", () => {
  it("is the body itself, copied, when nothing exceeds the limits", () => {
    const body = { a: [1, 2], b: { c: "x" } };
    const sample = sampleOf(body, [], LIMITS);
    expect(sample).toMatchObject({ cut: false, value: body });
    expect(sample.value).not.toBe(body);
  });

  it("keeps the first elements and keys, and the element on the focus path wherever it is", () => {
    const body = { list: [0, 1, 2, 3, { bad: true }, 5], x: 1, y: 2, z: 3 };
    const sample = sampleOf(body, ["list", "4", "bad"], LIMITS);
    expect(sample.cut).toBe(true);
    expect(sample.value).toEqual({ list: [0, 1, { bad: true }], x: 1 });
    // zod would name the kept element at the sample's index 2: the body's index is 4.
    expect(sample.trusted([{ code: "invalid_type", path: ["list", 2, "bad"] }])).toEqual([{ code: "invalid_type", path: ["list", 4, "bad"] }]);
  });

  it("trusts what the body has too, not what the cut made up", () => {
    const body = { short: [1, 2, 3], whole: [1], object: { a: 1, b: 2, c: 3 }, kept: { a: "x" } };
    const sample = sampleOf(body, [], { items: 2, keys: 4, values: 50 });
    const trusted = sample.trusted([
      { code: "too_small", path: ["short"] }, // shortened by the cut: not the body's
      { code: "too_big", path: ["short"] }, // the body is longer still
      { code: "too_small", path: ["whole"] }, // nothing left out
      { code: "invalid_type", path: ["kept", "missing"] }, // a key the body lacks too
      { code: "invalid_type", path: [] }, // the root lost elements below it
    ]);
    expect(trusted.map((issue) => issue.path.join(".") + ":" + issue.code)).toEqual(["short:too_big", "whole:too_small", "kept.missing:invalid_type"]);
    const keys = sampleOf({ a: 1, b: 2, c: 3 }, [], LIMITS);
    expect(keys.trusted([{ code: "invalid_type", path: ["c"] }, { code: "unrecognized_keys", path: [] }])).toEqual([{ code: "unrecognized_keys", path: [] }]);
  });

  it("stops copying at its budget, cutting containers to null that it never trusts", () => {
    const body = { first: { deep: [1, 2] }, second: { deep: [3, 4] } };
    const sample = sampleOf(body, ["second"], { items: 8, keys: 8, values: 4 });
    expect(sample.cut).toBe(true);
    expect(sample.value).toEqual({ first: null, second: { deep: [3, 4] } });
    expect(sample.trusted([{ code: "invalid_type", path: ["first"] }, { code: "invalid_type", path: ["second", "deep", 0] }])).toEqual([{ code: "invalid_type", path: ["second", "deep", 0] }]);
  });

  it("copies a body of any breadth in bounded time", () => {
    const body = { metadata: Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`k${index}`, { nested: [index, index] }])) };
    const sample = sampleOf(body, ["metadata", "k9999"]);
    expect(Object.keys((sample.value as { metadata: object }).metadata)).toHaveLength(65);
  });
});
