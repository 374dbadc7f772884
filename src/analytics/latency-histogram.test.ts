import { describe, expect, it } from "vitest";
import { bucketOf, emptyHistogram, percentiles, UPPER_BOUNDS } from "./latency-histogram.ts";

describe("latency histogram", () => {
  it("puts each value in the bucket whose bounds hold it", () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(0.99)).toBe(0);
    expect(bucketOf(1)).toBe(1);
    expect(bucketOf(2)).toBe(4);
    expect(bucketOf(1e9)).toBe(63);
    for (const ms of [1.5, 37, 800, 12_345.6, 600_000]) {
      const bucket = bucketOf(ms);
      expect(ms).toBeGreaterThanOrEqual(UPPER_BOUNDS[bucket - 1]!);
      expect(ms).toBeLessThan(UPPER_BOUNDS[bucket]!);
    }
  });

  it("reads percentiles within half a bucket, exactly when every value is the same", () => {
    expect(percentiles(emptyHistogram())).toEqual({ p50: null, p95: null, p99: null });
    const values = Array.from({ length: 1000 }, (_, i) => 10 + i * 3.7);
    const histogram = emptyHistogram();
    for (const v of values) histogram.counts[bucketOf(v)]! += 1;
    histogram.min = values[0]!;
    histogram.max = values.at(-1)!;
    const read = percentiles(histogram);
    for (const [p, got] of [[0.5, read.p50], [0.95, read.p95], [0.99, read.p99]] as const) {
      const exact = values[Math.ceil(p * values.length) - 1]!;
      expect(got! / exact).toBeGreaterThan(1 / 1.123);
      expect(got! / exact).toBeLessThan(1.123);
    }
    const same = emptyHistogram();
    same.counts[bucketOf(123.45)] = 5;
    same.min = 123.45;
    same.max = 123.45;
    expect(percentiles(same)).toEqual({ p50: 123.45, p95: 123.45, p99: 123.45 });
  });
});
