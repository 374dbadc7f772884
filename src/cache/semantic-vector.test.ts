import { describe, expect, it } from "vitest";
import { checkVector, LARGEST_FINITE, MAX_DIMENSIONS } from "./semantic-vector.ts";

const norm = (vector: ArrayLike<number>): number => Math.hypot(...Array.from(vector));

describe("checkVector", () => {
  it("scales a sound vector to unit length, whatever its magnitude", () => {
    for (const scale of [1e-30, 1e-3, 1, 1_000, 16_000]) {
      const checked = checkVector([3 * scale, 4 * scale, 0], { scalar: "f16" });
      expect(checked.ok).toBe(true);
      if (!checked.ok) continue;
      expect(Array.from(checked.vector)).toEqual([Math.fround(0.6), Math.fround(0.8), 0]);
    }
    // Components too small to square in float64 still have a direction.
    const tiny = checkVector([1e-200, 1e-200], { scalar: "f16" });
    expect(tiny.ok && norm(tiny.vector)).toBeCloseTo(1, 6);
  });

  it("refuses a component past the stored kind's largest finite value: 1e5 for float16, 1e39 for float32", () => {
    expect(LARGEST_FINITE.f16).toBe(65_504);
    expect(checkVector([0.1, 65_504], { scalar: "f16" }).ok).toBe(true);
    expect(checkVector([0.1, 1e5], { scalar: "f16" })).toEqual({ ok: false, reason: "component 1 (100000) is not a finite float16 (largest 65504)" });
    expect(checkVector([-1e5, 0.1], { scalar: "f16" })).toMatchObject({ ok: false, reason: expect.stringMatching(/^component 0 \(-100000\)/) });
    expect(checkVector([0.1, 1e5], { scalar: "f32" }).ok).toBe(true);
    expect(checkVector([0.1, 1e39], { scalar: "f32" })).toEqual({ ok: false, reason: `component 1 (1e+39) is not a finite float32 (largest ${LARGEST_FINITE.f32})` });
    for (const value of [Infinity, -Infinity, NaN]) {
      expect(checkVector([0.1, value], { scalar: "f32" })).toMatchObject({ ok: false, reason: expect.stringMatching(/^component 1 /) });
    }
  });

  it("refuses a zero vector, an empty one, too many dimensions and dimensions other than the index's", () => {
    expect(checkVector([0, 0, -0], { scalar: "f16" })).toEqual({ ok: false, reason: "its norm is zero" });
    expect(checkVector([], { scalar: "f16" })).toEqual({ ok: false, reason: "it has no components" });
    expect(checkVector(new Float64Array(MAX_DIMENSIONS + 1).fill(1), { scalar: "f16" })).toEqual({ ok: false, reason: `it has ${MAX_DIMENSIONS + 1} dimensions, more than ${MAX_DIMENSIONS}` });
    expect(checkVector(new Float64Array(MAX_DIMENSIONS).fill(1), { scalar: "f16" }).ok).toBe(true);
    expect(checkVector([1, 0, 0], { scalar: "f16", dimensions: 4 })).toEqual({ ok: false, reason: "it has 3 dimensions, the partition's index 4" });
    expect(checkVector([1, 0, 0, 0], { scalar: "f16", dimensions: 4 }).ok).toBe(true);
  });
});
