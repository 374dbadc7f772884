import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mixtureSprt, normalQuantile } from "./sequential-test.ts";

describe("normalQuantile", () => {
  it("matches known quantiles", () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 7);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959963985, 7);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829304, 7);
    expect(normalQuantile(1e-6)).toBeCloseTo(-4.753424309, 6);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
  });
});

describe("mixtureSprt", () => {
  it("computes the mixture likelihood ratio and the interval it inverts to", () => {
    // V = τ² = 1, Δ̂ = 2: Λ = √½ · e^(1·4/(2·1·2)) = √½ · e.
    const test = mixtureSprt(2, 1, 1, 0.05);
    expect(test.lambda).toBeCloseTo(Math.SQRT1_2 * Math.E, 12);
    expect(test.pValue).toBeCloseTo(1 / (Math.SQRT1_2 * Math.E), 12);
    const half = Math.sqrt(4 * (Math.log(20) + 0.5 * Math.log(2)));
    expect(test.low).toBeCloseTo(2 - half, 12);
    expect(test.high).toBeCloseTo(2 + half, 12);
  });

  it("rejects no difference exactly when its interval excludes 0, and Λ(Δ0) = 1/α at the interval's ends", () => {
    fc.assert(
      fc.property(fc.double({ min: -5, max: 5, noNaN: true }), fc.double({ min: 1e-4, max: 10, noNaN: true }), fc.double({ min: 1e-4, max: 10, noNaN: true }), (estimate, variance, tau) => {
        const alpha = 0.05;
        const test = mixtureSprt(estimate, variance, tau, alpha);
        const excludesZero = test.low > 0 || test.high < 0;
        if (Math.abs(test.pValue - alpha) > 1e-9) expect(test.pValue < alpha).toBe(excludesZero);
        const atEnd = mixtureSprt(estimate - test.low, variance, tau, alpha);
        expect(Math.log(atEnd.lambda)).toBeCloseTo(Math.log(1 / alpha), 6);
      }),
    );
  });

  it("is wider than a fixed-sample interval: the price of looking any number of times", () => {
    const test = mixtureSprt(0, 0.01, 0.01, 0.05);
    expect(test.high).toBeGreaterThan(1.96 * 0.1);
  });

  it("gives no evidence without a variance", () => {
    expect(mixtureSprt(1, 0, 1, 0.05)).toEqual({ lambda: 1, pValue: 1, low: -Infinity, high: Infinity });
    expect(mixtureSprt(Number.NaN, 1, 1, 0.05).pValue).toBe(1);
  });
});
