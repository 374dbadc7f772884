import { emptyHistogram, mergeHistogram, type Histogram } from "./latency-histogram.ts";

/** How records are cut: one total, UTC time buckets, or the values of one dimension. */
export type AnalyticsInterval = "minute" | "hour" | "day";
export type AnalyticsGroupBy = "user" | "model" | "provider" | "virtual_key_id" | "status" | "metadata" | "experiment_variant";
export type AnalyticsSlice =
  | { kind: "total" }
  | { kind: "time"; interval: AnalyticsInterval }
  /** `limit`: only the first `limit` groups in `compareGroups` order (`analytics-views.ts`). */
  | { kind: "group"; by: AnalyticsGroupBy; metadataKey?: string; limit?: number };

/** The sums of a set of records; latency percentiles come from the histograms. */
export interface Aggregate {
  requests: number;
  /** Records with `success` false. */
  errors: number;
  /** Sum of the priced records' cost (an unpriced record adds nothing). */
  costUsd: number;
  /** Sum of the cache hits' `costSavedUsd`. */
  costSavedUsd: number;
  /** Records served by an identical request's answer (`HIT`), and by a request that means the same (`SEMANTIC_HIT`). */
  cacheHits: number;
  semanticCacheHits: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latency: Histogram;
  /** Only records with a time to first token (streams). */
  ttft: Histogram;
}

export function emptyAggregate(): Aggregate {
  return {
    requests: 0,
    errors: 0,
    costUsd: 0,
    costSavedUsd: 0,
    cacheHits: 0,
    semanticCacheHits: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    latency: emptyHistogram(),
    ttft: emptyHistogram(),
  };
}

/** Adds `other` into `into` (in place). */
export function mergeAggregate(into: Aggregate, other: Aggregate): void {
  into.requests += other.requests;
  into.errors += other.errors;
  into.costUsd += other.costUsd;
  into.costSavedUsd += other.costSavedUsd;
  into.cacheHits += other.cacheHits;
  into.semanticCacheHits += other.semanticCacheHits;
  into.promptTokens += other.promptTokens;
  into.completionTokens += other.completionTokens;
  into.totalTokens += other.totalTokens;
  mergeHistogram(into.latency, other.latency);
  mergeHistogram(into.ttft, other.ttft);
}

/**
 * Aggregates keyed by slice key: `""` for the total, a bucket's ISO start for time, the
 * dimension's value (null for none) for groups.
 */
export type SliceAggregates = Map<string | null, Aggregate>;

/** The aggregate of `key`, created empty on first use. */
export function aggregateFor(aggregates: SliceAggregates, key: string | null): Aggregate {
  let aggregate = aggregates.get(key);
  if (!aggregate) {
    aggregate = emptyAggregate();
    aggregates.set(key, aggregate);
  }
  return aggregate;
}

const BUCKET_MS: Record<AnalyticsInterval, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** The length of one bucket; UTC has no DST, so a day is always 24 hours here. */
export function intervalMs(interval: AnalyticsInterval): number {
  return BUCKET_MS[interval];
}

/** The start of the UTC bucket holding `ms`. */
export function bucketStart(ms: number, interval: AnalyticsInterval): number {
  return Math.floor(ms / BUCKET_MS[interval]) * BUCKET_MS[interval];
}

/**
 * The ISO start of a bucket from a stored timestamp's prefix (`YYYY-MM-DDTHH:MM`, `…THH`,
 * `YYYY-MM-DD`), as both the raw rows and the rollups give it.
 */
export function bucketKeyFromPrefix(prefix: string, interval: AnalyticsInterval): string {
  if (interval === "minute") return `${prefix.slice(0, 16)}:00.000Z`;
  if (interval === "hour") return `${prefix.slice(0, 13)}:00:00.000Z`;
  return `${prefix.slice(0, 10)}T00:00:00.000Z`;
}

/** How many characters of a stored ISO timestamp name its bucket. */
export const PREFIX_LENGTH: Record<AnalyticsInterval, number> = { minute: 16, hour: 13, day: 10 };
