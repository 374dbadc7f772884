import type { AnalyticsGroup, AnalyticsSummary, AnalyticsTimeseriesPoint } from "../generated/schemas.gen.ts";
import { emptyAggregate, type Aggregate, type SliceAggregates } from "./aggregate.ts";
import { percentiles } from "./latency-histogram.ts";
import type { AnalyticsRange } from "./analytics-range.ts";

/** Cost sums of floats pick up noise (0.1 + 0.2); ten decimals is far below a cent's fraction. */
const roundCost = (usd: number): number => Math.round(usd * 1e10) / 1e10;
const errorRate = (a: Aggregate): number => (a.requests === 0 ? 0 : a.errors / a.requests);

export function summaryView(range: AnalyticsRange, aggregate: Aggregate = emptyAggregate()): AnalyticsSummary {
  return {
    object: "analytics.summary",
    from: range.from,
    to: range.to,
    requests: aggregate.requests,
    errors: aggregate.errors,
    error_rate: errorRate(aggregate),
    cost_usd: roundCost(aggregate.costUsd),
    cost_saved_usd: roundCost(aggregate.costSavedUsd),
    cache_hits: aggregate.cacheHits,
    semantic_cache_hits: aggregate.semanticCacheHits,
    prompt_tokens: aggregate.promptTokens,
    completion_tokens: aggregate.completionTokens,
    total_tokens: aggregate.totalTokens,
    latency_ms: percentiles(aggregate.latency),
    time_to_first_token_ms: percentiles(aggregate.ttft),
  };
}

export function timeseriesPointView(start: string, aggregate: Aggregate = emptyAggregate()): AnalyticsTimeseriesPoint {
  return {
    start,
    requests: aggregate.requests,
    errors: aggregate.errors,
    error_rate: errorRate(aggregate),
    cost_usd: roundCost(aggregate.costUsd),
    cost_saved_usd: roundCost(aggregate.costSavedUsd),
    cache_hits: aggregate.cacheHits,
    semantic_cache_hits: aggregate.semanticCacheHits,
    total_tokens: aggregate.totalTokens,
    latency_ms: percentiles(aggregate.latency),
  };
}

export function groupView(key: string | null, aggregate: Aggregate): AnalyticsGroup {
  return {
    key,
    requests: aggregate.requests,
    errors: aggregate.errors,
    cost_usd: roundCost(aggregate.costUsd),
    cost_saved_usd: roundCost(aggregate.costSavedUsd),
    cache_hits: aggregate.cacheHits,
    semantic_cache_hits: aggregate.semanticCacheHits,
    total_tokens: aggregate.totalTokens,
    latency_ms: percentiles(aggregate.latency),
  };
}

/** Costliest first, then busiest, then by key (null last) so equal groups keep one order. */
export function compareGroups(a: AnalyticsGroup, b: AnalyticsGroup): number {
  if (a.cost_usd !== b.cost_usd) return b.cost_usd - a.cost_usd;
  if (a.requests !== b.requests) return b.requests - a.requests;
  if (a.key === b.key) return 0;
  if (a.key === null) return 1;
  if (b.key === null) return -1;
  return a.key < b.key ? -1 : 1;
}

/** The first `limit` groups of `aggregates` in `compareGroups` order, for a store that sums every group. */
export function topGroups(aggregates: SliceAggregates, limit: number): SliceAggregates {
  const kept = [...aggregates].map(([key, aggregate]) => groupView(key, aggregate)).sort(compareGroups).slice(0, limit);
  return new Map(kept.map((group) => [group.key, aggregates.get(group.key)!]));
}
