import type { Histogram } from "./latency-histogram.ts";

/** Count, sum and sum of squares of some values: what a mean and its variance are read from. */
export interface Moments {
  n: number;
  sum: number;
  squares: number;
}

export function emptyMoments(): Moments {
  return { n: 0, sum: 0, squares: 0 };
}

export function addMoments(into: Moments, other: Moments): void {
  into.n += other.n;
  into.sum += other.sum;
  into.squares += other.squares;
}

/** The mean, or null without values. */
export function meanOf(moments: Moments): number | null {
  return moments.n > 0 ? moments.sum / moments.n : null;
}

/** The unbiased sample variance, or null below two values; never below 0 (rounding). */
export function varianceOf(moments: Moments): number | null {
  if (moments.n < 2) return null;
  const mean = moments.sum / moments.n;
  return Math.max(0, (moments.squares - moments.n * mean * mean) / (moments.n - 1));
}

/**
 * Log₂ latency as the histogram sees it: bucket b (1..63) holds [2^((b−1)/3), 2^(b/3)) ms, read at
 * its middle on the log scale, (b − ½)/3; bucket 0 ([0, 1) ms) at −⅙. The moments of that value
 * over the variant's requests: a monotone transform of latency, so a test on its mean is a test
 * on the geometric mean latency, within the buckets' resolution (26 % wide, the same for every variant).
 */
export function logLatencyMoments(histogram: Histogram): Moments {
  const moments = emptyMoments();
  for (const [bucket, count] of histogram.counts.entries()) {
    if (count === 0) continue;
    const value = (bucket - 0.5) / 3;
    moments.n += count;
    moments.sum += count * value;
    moments.squares += count * value * value;
  }
  return moments;
}
