import { aggregateFor, intervalMs, type Aggregate, type AnalyticsSlice, type SliceAggregates } from "../analytics/aggregate.ts";
import { topGroups } from "../analytics/analytics-views.ts";
import type { Histogram } from "../analytics/latency-histogram.ts";
import { splitByPeriods, type TimeRange } from "../store/analytics-plan.ts";
import type { AnalyticsRepository, AnalyticsSelection } from "../store/analytics-repository.ts";
import type { LogFilterSet } from "../store/log-filters.ts";
import { decodeRollupValue, encodeRollupValue } from "../store/log-rollup-rows.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { logFiltersSql, metadataValueSql, type ConfigIdResolver } from "./clickhouse-log-filters.ts";
import { chooseClickHouseRollup, hoursOfPartialDays, rankingRollup, withoutKeyRollup, type ClickHouseRollup } from "./clickhouse-rollup-plan.ts";
import { num, str } from "./clickhouse-sql.ts";

type Row = Record<string, unknown>;

const n = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
const nOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * Analytics over ClickHouse: whole periods from the rollup tables (materialized views of the
 * inserts) when the query fits one (`chooseClickHouseRollup`), the partial periods at either end
 * and every other query from the raw rows. Both give the sums and histograms the main store gives.
 */
export function createClickHouseAnalyticsRepository(connection: ClickHouseConnection, resolveConfig: ConfigIdResolver): AnalyticsRepository {
  return {
    async aggregate(selection, slice, options) {
      const into: SliceAggregates = new Map();
      const rollup = options?.via === "raw" ? null : chooseClickHouseRollup(selection, slice);
      const { hours, edges } = rollup ? splitByPeriods(selection, rollup.period) : { hours: null, edges: [selection] };
      const parts: RangePart[] = [];
      if (rollup && hours) {
        parts.push({ kind: "rollup", periods: hours, rollup });
        // The null group of a metadata group: the records without the key, from the key-set rollup.
        if (rollup.withoutKey !== undefined) parts.push({ kind: "rollup", periods: hours, rollup: withoutKeyRollup(rollup.withoutKey), nullGroup: true });
      }
      const edgeHours = rollup && hoursOfPartialDays(rollup);
      for (const edge of edges) parts.push(...(edgeHours ? inWholeHours({ ...selection, ...edge }, edgeHours) : [{ kind: "raw" as const, selection: { ...selection, ...edge } }]));
      // With a limit, the groups are ranked by cost and count alone first: merging every group's
      // histograms (10,000 end users) costs far more than ranking them. End users' hours are
      // ranked from their plain hour counts, faster to sum than the states.
      const ranked = () => parts.map((part) => (part.kind === "rollup" ? { ...part, rollup: rankingRollup(part.rollup) } : part));
      const keys = slice.kind === "group" && slice.limit !== undefined ? await firstGroupKeys(connection, selection, slice, ranked(), slice.limit, resolveConfig) : undefined;
      if (keys?.length === 0) return into;
      // The parts are read at once and folded in their order, so sums add up the same every time.
      const folds = await Promise.all(
        parts.map((part) => {
          // The null group's own rollup holds nothing else: read whole when the null group is kept, else not at all.
          if (part.kind === "rollup" && part.nullGroup) return !keys || keys.includes(null) ? rollupAggregates(connection, selection, part.periods, part.rollup, slice) : undefined;
          if (part.kind === "rollup") return rollupAggregates(connection, selection, part.periods, part.rollup, slice, keys);
          return rawAggregates(connection, part.selection, slice, resolveConfig, keys);
        }),
      );
      for (const fold of folds) fold?.(into);
      return into;
    },
  };
}

/** One part of an analytics range: whole periods from a rollup, or raw rows. */
type RangePart = { kind: "rollup"; periods: TimeRange; rollup: ClickHouseRollup; nullGroup?: true } | { kind: "raw"; selection: LogFilterSet & TimeRange };

/** A partial day: its whole hours from the hour rollup `hours`, the partial hours at its ends from the raw rows. */
function inWholeHours(edge: LogFilterSet & TimeRange, hours: ClickHouseRollup): RangePart[] {
  const split = splitByPeriods(edge, "hour");
  return [
    ...(split.hours ? [{ kind: "rollup" as const, periods: split.hours, rollup: hours }] : []),
    ...split.edges.map((partial) => ({ kind: "raw" as const, selection: { ...edge, ...partial } })),
  ];
}

/**
 * The first `limit` groups of the whole range in `compareGroups` order (`topGroups`), from each
 * part's cost and count per group, summed over the parts.
 */
async function firstGroupKeys(
  connection: ClickHouseConnection,
  selection: AnalyticsSelection,
  slice: AnalyticsSlice,
  parts: readonly RangePart[],
  limit: number,
  resolveConfig: ConfigIdResolver,
): Promise<(string | null)[]> {
  const ranks: SliceAggregates = new Map();
  // Every part's ranking is read at once, then summed in the parts' order.
  const partRows = await Promise.all(
    parts.map(async (part) => {
      // Grouped by the stored key column where there is one, decoded here: cheaper than decoding every row in ClickHouse.
      const stored = part.kind === "rollup" ? part.rollup.groupColumn : undefined;
      const query =
        part.kind === "rollup"
          ? `SELECT ${stored ?? part.rollup.key(slice)} AS k, ${part.rollup.rankingOnly ? "sum(requests) AS requests, sum(cost_usd)" : "countMerge(requests) AS requests, sumMerge(cost_usd)"} AS cost_usd
             FROM ${part.rollup.table} WHERE ${rollupConditions(selection, part.periods, part.rollup)} GROUP BY k`
          : `SELECT ${rawKey(slice)} AS k, count() AS requests, sum(cost_usd) AS cost_usd FROM logs WHERE ${await logFiltersSql(part.selection, resolveConfig)} GROUP BY k`;
      return { stored, rows: await connection.rows<Row>(query) };
    }),
  );
  for (const { stored, rows } of partRows) {
    for (const row of rows) {
      if (n(row.requests) === 0) continue;
      const aggregate = aggregateFor(ranks, stored ? decodeRollupValue(String(row.k)) : sliceKey(slice, row.k));
      aggregate.requests += n(row.requests);
      aggregate.costUsd += n(row.cost_usd);
    }
  }
  return [...topGroups(ranks, limit).keys()];
}

/** A condition keeping only the rows whose group (`expression`) is one of `keys` (null: the null group). */
function groupKeyCondition(expression: string, keys: readonly (string | null)[]): string {
  const values = keys.filter((key): key is string => key !== null);
  const conditions = [...(values.length > 0 ? [`(${expression}) IN (${values.map(str).join(", ")})`] : []), ...(keys.includes(null) ? [`(${expression}) IS NULL`] : [])];
  return `(${conditions.join(" OR ")})`;
}

/** A condition keeping only the rollup rows whose stored key `column` holds one of `keys` (null: the null group). */
function storedKeyCondition(column: string, keys: readonly (string | null)[]): string {
  return `${column} IN (${keys.map((key) => str(encodeRollupValue(key))).join(", ")})`;
}

const SUMS = `count() AS requests,
  sum(success = 0) AS errors,
  sum(cost_usd) AS cost_usd,
  sum(cost_saved_usd) AS cost_saved_usd,
  sum(ifNull(cache_status, '') = 'HIT') AS cache_hits,
  sum(ifNull(cache_status, '') = 'SEMANTIC_HIT') AS semantic_cache_hits,
  sum(prompt_tokens) AS prompt_tokens,
  sum(completion_tokens) AS completion_tokens,
  sum(total_tokens) AS total_tokens,
  min(latency_ms) AS latency_min,
  max(latency_ms) AS latency_max`;

/** The raw rows' expression a slice is keyed by (a time bucket as its start in ms, a status as text). */
function rawKey(slice: AnalyticsSlice): string | null {
  if (slice.kind === "total") return null;
  if (slice.kind === "time") {
    const size = intervalMs(slice.interval);
    return `intDiv(created_ms, ${size}) * ${size}`;
  }
  switch (slice.by) {
    case "user":
      return "end_user";
    case "model":
      return "model";
    case "provider":
      return "provider";
    case "virtual_key_id":
      return "virtual_key_id";
    case "status":
      return "toString(status)";
    case "experiment_variant":
      return "experiment_variant";
    case "metadata":
      return metadataValueSql(slice.metadataKey ?? "");
  }
}

/** Adds what was read to the aggregates. */
type Fold = (into: SliceAggregates) => void;

/** Sums the raw rows per slice key and histogram bucket in ClickHouse; resolves to their fold into the aggregates. */
async function rawAggregates(
  connection: ClickHouseConnection,
  selection: LogFilterSet,
  slice: AnalyticsSlice,
  resolveConfig: ConfigIdResolver,
  keys?: readonly (string | null)[],
): Promise<Fold> {
  const key = rawKey(slice);
  const filters = await logFiltersSql(selection, resolveConfig);
  const where = key && keys ? `${filters} AND ${groupKeyCondition(key, keys)}` : filters;
  const total = slice.kind === "total";
  const select = [
    "latency_bucket AS lb",
    ...(total ? ["ttft_bucket AS tb", "min(time_to_first_token_ms) AS ttft_min", "max(time_to_first_token_ms) AS ttft_max"] : []),
    ...(key ? [`${key} AS k`] : []),
    SUMS,
  ];
  const groupBy = ["lb", ...(total ? ["tb"] : []), ...(key ? ["k"] : [])];
  const rows = await connection.rows<Row>(`SELECT ${select.join(", ")} FROM logs WHERE ${where} GROUP BY ${groupBy.join(", ")}`);
  return (into) => {
    for (const row of rows) {
      const aggregate = aggregateFor(into, sliceKey(slice, row.k));
      addSums(aggregate, row);
      aggregate.latency.counts[n(row.lb)]! += n(row.requests);
      widen(aggregate.latency, nOrNull(row.latency_min), nOrNull(row.latency_max));
      if (row.tb !== null && row.tb !== undefined) {
        aggregate.ttft.counts[n(row.tb)]! += n(row.requests);
        widen(aggregate.ttft, nOrNull(row.ttft_min), nOrNull(row.ttft_max));
      }
    }
  };
}

/** The slice key of a row's `k`: a bucket's ISO start, a group's value (null for none), `""` for the total. */
function sliceKey(slice: AnalyticsSlice, raw: unknown): string | null {
  if (slice.kind === "total") return "";
  if (slice.kind === "time") return new Date(Number(raw)).toISOString();
  return raw === null || raw === undefined ? null : String(raw);
}

/**
 * Sums the rollup rows of whole `periods` per slice key (only `keys`' groups, when given),
 * histograms included, in ClickHouse; resolves to their fold into the aggregates.
 */
async function rollupAggregates(
  connection: ClickHouseConnection,
  selection: AnalyticsSelection,
  periods: TimeRange,
  rollup: ClickHouseRollup,
  slice: AnalyticsSlice,
  keys?: readonly (string | null)[],
): Promise<Fold> {
  const key = rollup.key(slice);
  const kept = key && keys ? (rollup.groupColumn ? storedKeyCondition(rollup.groupColumn, keys) : groupKeyCondition(key, keys)) : null;
  const conditions = rollupConditions(selection, periods, rollup) + (kept ? ` AND ${kept}` : "");
  // Only a total reports time to first token: its states are the widest after latency's, so other slices leave them unread.
  const total = slice.kind === "total";
  const select = [
    ...(key ? [`${key} AS k`] : []),
    `countMerge(requests) AS requests, sumMerge(errors) AS errors, sumMerge(cost_usd) AS cost_usd, sumMerge(cost_saved_usd) AS cost_saved_usd,
     sumMerge(cache_hits) AS cache_hits, sumMerge(semantic_cache_hits) AS semantic_cache_hits, sumMerge(prompt_tokens) AS prompt_tokens,
     sumMerge(completion_tokens) AS completion_tokens, sumMerge(total_tokens) AS total_tokens, minMerge(latency_min) AS latency_min,
     maxMerge(latency_max) AS latency_max, sumForEachMerge(latency) AS latency`,
    ...(total ? ["minIfMerge(ttft_min) AS ttft_min, maxIfMerge(ttft_max) AS ttft_max, sumForEachMerge(ttft) AS ttft"] : []),
  ];
  const rows = await connection.rows<Row>(`SELECT ${select.join(", ")} FROM ${rollup.table} WHERE ${conditions}${key ? " GROUP BY k" : ""}`);
  return (into) => {
    for (const row of rows) {
      // An aggregate over no rows (the total of an empty range) is one row of zeros.
      if (n(row.requests) === 0) continue;
      const aggregate = aggregateFor(into, sliceKey(slice, row.k));
      addSums(aggregate, row);
      addCounts(aggregate.latency, row.latency);
      widen(aggregate.latency, nOrNull(row.latency_min), nOrNull(row.latency_max));
      // Rows with no time to first token merge to extremes of 0, not null: only counted ones widen.
      if (total && addCounts(aggregate.ttft, row.ttft) > 0) widen(aggregate.ttft, nOrNull(row.ttft_min), nOrNull(row.ttft_max));
    }
  };
}

/** The rollup rows of `selection` over whole `periods`. */
function rollupConditions(selection: AnalyticsSelection, periods: TimeRange, rollup: ClickHouseRollup): string {
  const from = Math.trunc(Date.parse(periods.from) / 1000);
  const to = Math.trunc(Date.parse(periods.to) / 1000);
  const conditions = [
    `workspace_id = ${str(selection.workspaceId)}`,
    `${rollup.time} >= ${rollup.toTime(from)}`,
    `${rollup.time} < ${rollup.toTime(to)}`,
    ...rollup.filters.map(([column, value]) => `${column} = ${typeof value === "number" ? num(value) : str(value)}`),
    ...(rollup.condition === undefined ? [] : [rollup.condition]),
  ];
  if (selection.success !== undefined) conditions.push(`success = ${selection.success ? 1 : 0}`);
  return conditions.join(" AND ");
}

/** Adds a rollup's histogram (counts per bucket, 64-bit, so JSON strings) to a histogram's counts; returns how many it added. */
function addCounts(histogram: Histogram, value: unknown): number {
  let added = 0;
  ((value ?? []) as unknown[]).forEach((count, bucket) => {
    histogram.counts[bucket]! += n(count);
    added += n(count);
  });
  return added;
}

function widen(histogram: Histogram, min: number | null, max: number | null): void {
  if (min !== null) histogram.min = histogram.min === null ? min : Math.min(histogram.min, min);
  if (max !== null) histogram.max = histogram.max === null ? max : Math.max(histogram.max, max);
}

function addSums(aggregate: Aggregate, row: Row): void {
  aggregate.requests += n(row.requests);
  aggregate.errors += n(row.errors);
  aggregate.costUsd += n(row.cost_usd);
  aggregate.costSavedUsd += n(row.cost_saved_usd);
  aggregate.cacheHits += n(row.cache_hits);
  aggregate.semanticCacheHits += n(row.semantic_cache_hits);
  aggregate.promptTokens += n(row.prompt_tokens);
  aggregate.completionTokens += n(row.completion_tokens);
  aggregate.totalTokens += n(row.total_tokens);
}
