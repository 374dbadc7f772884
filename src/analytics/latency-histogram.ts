/**
 * A fixed log-scale histogram of milliseconds, the form in which latency is summed in the
 * rollups and on the raw path alike, so both give the same percentiles.
 *
 * Bucket 0 holds [0, 1) ms; bucket i (1..62) holds [2^((i-1)/3), 2^(i/3)); bucket 63 holds
 * everything from 2^(62/3) ms (about 28 minutes) up. Adjacent bounds differ by 26%, so a
 * percentile read as its bucket's geometric middle is within about 12% of the exact value
 * (and is exact when every value is the same, thanks to the min/max clamp).
 *
 * The bounds are part of the stored data (rollup columns `lat_00`…`lat_63`): changing them
 * needs a migration that rebuilds the rollups.
 */
export const HISTOGRAM_BUCKETS = 64;

/** `UPPER_BOUNDS[i]` is the exclusive upper bound of bucket i, for i in 0..62. */
export const UPPER_BOUNDS: readonly number[] = Array.from({ length: HISTOGRAM_BUCKETS - 1 }, (_, i) => 2 ** (i / 3));

/** The bucket of a value in ms: the number of upper bounds at or below it. Negative and NaN count as 0. */
export function bucketOf(ms: number): number {
  let low = 0;
  let high = UPPER_BOUNDS.length;
  // First bound strictly above `ms`; comparisons only, the same ones the SQL CASE makes.
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ms < UPPER_BOUNDS[mid]!) high = mid;
    else low = mid + 1;
  }
  return Number.isNaN(ms) ? 0 : low;
}

/** A histogram with the exact extremes of what it holds (null when empty). */
export interface Histogram {
  counts: number[];
  min: number | null;
  max: number | null;
}

export function emptyHistogram(): Histogram {
  return { counts: new Array<number>(HISTOGRAM_BUCKETS).fill(0), min: null, max: null };
}

/** Adds `other` into `into` (in place). */
export function mergeHistogram(into: Histogram, other: Histogram): void {
  for (let i = 0; i < HISTOGRAM_BUCKETS; i += 1) into.counts[i]! += other.counts[i]!;
  into.min = into.min === null ? other.min : other.min === null ? into.min : Math.min(into.min, other.min);
  into.max = into.max === null ? other.max : other.max === null ? into.max : Math.max(into.max, other.max);
}

export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * p50/p95/p99 by nearest rank: the bucket holding the ceil(p·n)-th value, read as its geometric
 * middle and clamped to the exact min and max. All null when the histogram is empty.
 */
export function percentiles(histogram: Histogram): Percentiles {
  const total = histogram.counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return { p50: null, p95: null, p99: null };
  const at = (p: number): number => Math.round(valueAtRank(histogram, Math.max(1, Math.ceil(p * total))) * 100) / 100;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/**
 * The `rank`-th smallest value (1-based) as the histogram knows it: its bucket's geometric
 * middle, clamped to the exact min and max. A rank past the count reads the last bucket.
 */
export function valueAtRank(histogram: Histogram, rank: number): number {
  let seen = 0;
  let bucket = 0;
  for (; bucket < HISTOGRAM_BUCKETS - 1; bucket += 1) {
    seen += histogram.counts[bucket]!;
    if (seen >= rank) break;
  }
  return Math.min(Math.max(middleOf(bucket), histogram.min ?? -Infinity), histogram.max ?? Infinity);
}

function middleOf(bucket: number): number {
  if (bucket === 0) return 0.5;
  if (bucket === HISTOGRAM_BUCKETS - 1) return UPPER_BOUNDS[HISTOGRAM_BUCKETS - 2]!;
  return Math.sqrt(UPPER_BOUNDS[bucket - 1]! * UPPER_BOUNDS[bucket]!);
}
