import { describe, expect, it } from "vitest";
import { slopePerMinute } from "./slope.ts";

describe("slopePerMinute", () => {
  it("gives a line's slope per minute, from samples in seconds", () => {
    expect(slopePerMinute([[0, 100], [30, 101], [60, 102]])).toBeCloseTo(2);
  });

  it("sees through noise around a flat level", () => {
    const points = Array.from({ length: 100 }, (_, i) => [i * 5, 150 + (i % 2 === 0 ? 20 : -20)] as const);
    expect(Math.abs(slopePerMinute(points))).toBeLessThan(0.5);
  });

  it("is NaN with fewer than two samples and 0 when they share one time", () => {
    expect(slopePerMinute([[0, 1]])).toBeNaN();
    expect(slopePerMinute([[5, 1], [5, 3]])).toBe(0);
  });
});
