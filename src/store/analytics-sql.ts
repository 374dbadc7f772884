import { sql, type Kysely, type RawBuilder } from "kysely";
import { aggregateFor, bucketKeyFromPrefix, PREFIX_LENGTH, type Aggregate, type AnalyticsSlice, type SliceAggregates } from "../analytics/aggregate.ts";
import type { Histogram } from "../analytics/latency-histogram.ts";
import type { RollupChoice, TimeRange } from "./analytics-plan.ts";
import { idRangeOf, partitionedById } from "./log-id-bound.ts";
import { matchesLogFilters, type LogFilterSet } from "./log-filters.ts";
import { pairValue } from "./log-metadata-pairs.ts";
import { dayLevelOf, decodeRollupValue, LATENCY_COLUMNS, TTFT_COLUMNS } from "./log-rollup-rows.ts";
import { bucketSql } from "./log-rollup-sql.ts";
import type { Database } from "./schema.ts";

/**
 * The SQL of both analytics paths. Every number is read through `Number()`: PostgreSQL returns
 * `count` and integer sums as bigint, which its driver hands over as text.
 */

type Row = Record<string, unknown>;

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The histogram's extremes widened by a row's (either may be null: no value yet). */
function widen(histogram: Histogram, min: number | null, max: number | null): void {
  if (min !== null) histogram.min = histogram.min === null ? min : Math.min(histogram.min, min);
  if (max !== null) histogram.max = histogram.max === null ? max : Math.max(histogram.max, max);
}

/** The slice key of a row's `k` column. */
function sliceKey(slice: AnalyticsSlice, raw: unknown, rollup: boolean): string | null {
  if (slice.kind === "total") return "";
  if (slice.kind === "time") return bucketKeyFromPrefix(String(raw), slice.interval);
  if (raw === null || raw === undefined) return null;
  return rollup ? decodeRollupValue(String(raw)) : String(raw);
}

/**
 * The raw rows' column a group is keyed by (a status as text, so keys are strings); `pairsInRow`:
 * PostgreSQL, whose logs hold their metadata pairs in the row unless stored before migration 0029.
 */
function rawGroupKey(slice: Extract<AnalyticsSlice, { kind: "group" }>, pairsInRow: boolean): RawBuilder<string | null> {
  switch (slice.by) {
    case "user":
      return sql`logs.end_user`;
    case "model":
      return sql`logs.model`;
    case "provider":
      return sql`logs.provider`;
    case "virtual_key_id":
      return sql`logs.virtual_key_id`;
    case "status":
      return sql`CAST(logs.status AS TEXT)`;
    case "experiment_variant":
      return sql`logs.experiment_variant`;
    case "metadata":
      // From the LEFT JOIN of `log_metadata` below (rows stored before 0029) or from the row's
      // pairs (rows stored since, which have no `log_metadata` rows); logs without the key form the null group.
      return pairsInRow ? sql`coalesce(m.value, ${pairValue(slice.metadataKey ?? "")})` : sql`m.value`;
  }
}

/** A select list: output alias and expression. Grouping is by position (see below). */
type Columns = Array<[alias: string, expression: RawBuilder<unknown>]>;

/**
 * Sums the raw `logs` rows matching `selection` (whose `from`/`to` bound the range) per slice
 * key and latency bucket in the database, and folds the few rows that come back into `into`.
 * Time to first token is bucketed only for the total (the summary is the one that shows it).
 */
export async function addRawAggregates(
  db: Kysely<Database>,
  selection: LogFilterSet,
  slice: AnalyticsSlice,
  into: SliceAggregates,
  keys?: ReadonlyArray<string | null>,
): Promise<void> {
  const columns: Columns = [
    ["lb", bucketSql(sql`logs.latency_ms`)],
    ["requests", sql`count(*)`],
    ["errors", sql`sum(CASE WHEN logs.success = 0 THEN 1 ELSE 0 END)`],
    ["cost_usd", sql`sum(logs.cost_usd)`],
    ["cost_saved_usd", sql`sum(logs.cost_saved_usd)`],
    ["cache_hits", sql`sum(CASE WHEN logs.cache_status = 'HIT' THEN 1 ELSE 0 END)`],
    ["semantic_cache_hits", sql`sum(CASE WHEN logs.cache_status = 'SEMANTIC_HIT' THEN 1 ELSE 0 END)`],
    ["prompt_tokens", sql`sum(logs.prompt_tokens)`],
    ["completion_tokens", sql`sum(logs.completion_tokens)`],
    ["total_tokens", sql`sum(logs.total_tokens)`],
    ["latency_min", sql`min(logs.latency_ms)`],
    ["latency_max", sql`max(logs.latency_ms)`],
  ];
  const groupBy = ["lb"];
  if (slice.kind === "total") {
    columns.push(["tb", bucketSql(sql`logs.time_to_first_token_ms`)]);
    columns.push(["ttft_min", sql`min(logs.time_to_first_token_ms)`], ["ttft_max", sql`max(logs.time_to_first_token_ms)`]);
    groupBy.push("tb");
  } else {
    const key = slice.kind === "time" ? sql`substr(logs.created_at, 1, ${sql.lit(PREFIX_LENGTH[slice.interval])})` : rawGroupKey(slice, partitionedById(db));
    columns.push(["k", key]);
    groupBy.push("k");
  }
  const rows = (await rawRows(db, selection, slice, keys)
    .select(columns.map(([alias, expression]) => expression.as(alias)))
    .groupBy(positions(columns, groupBy))
    .execute()) as Row[];
  for (const row of rows) {
    const aggregate = aggregateFor(into, sliceKey(slice, row.k, false));
    addSums(aggregate, row);
    aggregate.latency.counts[num(row.lb)]! += num(row.requests);
    widen(aggregate.latency, numOrNull(row.latency_min), numOrNull(row.latency_max));
    if (row.tb !== null && row.tb !== undefined) {
      aggregate.ttft.counts[num(row.tb)]! += num(row.requests);
      widen(aggregate.ttft, numOrNull(row.ttft_min), numOrNull(row.ttft_max));
    }
  }
}

/**
 * The raw `logs` rows matching `selection` (whose `from`/`to` bound the range), joined to the
 * grouped metadata key's pairs when grouping by metadata; `keys`: only the rows of those groups.
 */
export function rawRows(db: Kysely<Database>, selection: LogFilterSet, slice: AnalyticsSlice, keys?: ReadonlyArray<string | null>) {
  const idRange = partitionedById(db);
  const ids = idRange ? idRangeOf(selection.from, selection.to) : {};
  const metadataKey = slice.kind === "group" && slice.by === "metadata" ? (slice.metadataKey ?? "") : undefined;
  return (
    db
      .selectFrom("logs")
      // A join rather than a lookup per row: on PostgreSQL a correlated lookup is planned against
      // every day partition of the range for every row; a join reads the range's pairs of the key
      // once (the id bounds, constants, prune the partitions). A log has one pair a key (its
      // metadata is an object), so the join keeps one row a log.
      .$if(metadataKey !== undefined, (query) =>
        query.leftJoin("log_metadata as m", (join) => {
          let on = join.onRef("m.log_id", "=", "logs.id").on("m.workspace_id", "=", selection.workspaceId).on("m.key", "=", metadataKey!);
          if (ids.from !== undefined) on = on.on("m.log_id", ">=", ids.from);
          if (ids.to !== undefined) on = on.on("m.log_id", "<", ids.to);
          return on;
        }),
      )
      .where((eb) => matchesLogFilters(eb, selection, { idRange, pairsInRow: idRange }))
      .$if(keys !== undefined && slice.kind === "group", (query) => query.where(keyIn(rawGroupKey(slice as GroupSlice, idRange), keys!)))
  );
}

type GroupSlice = Extract<AnalyticsSlice, { kind: "group" }>;

/**
 * Runs `work` (an analytics query) on PostgreSQL in one transaction, so that `work` can set its
 * statements' planner settings (`SET LOCAL`) for itself alone.
 *
 * Where the query reads metadata, PostgreSQL joins `log_metadata` to the logs by hash, never by a
 * nested loop. The planner picks the loop when it expects a log or two, and it expects that of the
 * newest hour, which is newer than the partition's statistics; each turn of the loop then reads
 * the range's pairs again (a group: every pair of the key in the day, the value being unknown; a
 * filter: every pair of the value): 2.4 s instead of 12 ms for 300 logs against 60,000 pairs. A
 * hash join reads them once.
 */
export function inAnalyticsTransaction<T>(
  db: Kysely<Database>,
  selection: LogFilterSet,
  slice: AnalyticsSlice,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (!partitionedById(db)) return work(db);
  const joinsMetadata = (slice.kind === "group" && slice.by === "metadata") || Object.keys(selection.metadata ?? {}).length > 0;
  return db.transaction().execute(async (trx) => {
    if (joinsMetadata) await sql`SET LOCAL enable_nestloop = off`.execute(trx);
    return work(trx);
  });
}

/**
 * For the rest of the analytics transaction (`inAnalyticsTransaction`), plans for reading rollups
 * and a range's raw edges (partial hours, hours not built yet: a few hours of one workspace at
 * most), which touch thousands of rows, not millions:
 * - no parallel workers: PostgreSQL plans these reads in parallel from per-partition estimates,
 *   and starting the workers costs more than the read (the ranking of 30 days by model at 2M
 *   rows: 21 to 26 ms executing with two workers, 6 to 10 without);
 * - no sequential scan: an edge is read through an index that begins with the workspace. The
 *   planner takes the workspace's share of a day partition for its share of any range of it, and
 *   read the whole partition when that share was large although the workspace had no log in the
 *   edge (a summary of 24 hours at 20M rows: 2.3 s, where other workspaces had written 2,400,000
 *   logs since the last full hour; 19 to 32 ms without).
 * Queries that read only raw rows, or a raw part longer than an edge, keep the planner's own
 * choices: they scan the range.
 */
export async function planForRollupsAndEdges(db: Kysely<Database>): Promise<void> {
  if (!db.isTransaction || !partitionedById(db)) return;
  await sql`SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('enable_seqscan', 'off', true)`.execute(db);
}

/** The raw rows' group key as the rollups store it (`encodeRollupValue`), so both parts of a ranking share keys. */
export function encodedRawGroupKey(db: Kysely<Database>, slice: GroupSlice): RawBuilder<string> {
  const key = rawGroupKey(slice, partitionedById(db));
  return sql<string>`CASE WHEN ${key} IS NULL THEN '' ELSE '=' || ${key} END`;
}

/** `key` is one of `keys` (null matching a null key); no keys matches nothing. */
function keyIn(key: RawBuilder<string | null>, keys: ReadonlyArray<string | null>): RawBuilder<boolean> {
  const values = keys.filter((value): value is string => value !== null);
  const tests: RawBuilder<unknown>[] = [];
  if (values.length > 0) tests.push(sql`${key} IN (${sql.join(values)})`);
  if (values.length < keys.length) tests.push(sql`${key} IS NULL`);
  return tests.length === 0 ? sql<boolean>`1 = 0` : sql<boolean>`(${sql.join(tests, sql` OR `)})`;
}

/**
 * GROUP BY by output position (`GROUP BY 1, 10`): PostgreSQL would not see a parameterised
 * expression repeated in GROUP BY as the same one, and both engines accept positions.
 */
function positions(columns: Columns, aliases: readonly string[]): RawBuilder<unknown>[] {
  return aliases.map((alias) => sql.raw(String(columns.findIndex(([name]) => name === alias) + 1)));
}

function addSums(aggregate: Aggregate, row: Row): void {
  aggregate.requests += num(row.requests);
  aggregate.errors += num(row.errors);
  aggregate.costUsd += num(row.cost_usd);
  aggregate.costSavedUsd += num(row.cost_saved_usd);
  aggregate.cacheHits += num(row.cache_hits);
  aggregate.semanticCacheHits += num(row.semantic_cache_hits);
  aggregate.promptTokens += num(row.prompt_tokens);
  aggregate.completionTokens += num(row.completion_tokens);
  aggregate.totalTokens += num(row.total_tokens);
}

/**
 * Which rollup rows a part of a range reads: `choice`'s over whole `hours` (and of `success`,
 * when filtered); `dayRows`: the dimension's `day:` rows (PostgreSQL), `hours` then being whole
 * days; `keys`: only those groups' rows (values as stored, `encodeRollupValue`).
 */
export interface RollupQuery {
  workspaceId: string;
  success?: boolean;
  hours: TimeRange;
  choice: RollupChoice;
  dayRows?: boolean;
  keys?: readonly string[];
}

export function rollupRows(db: Kysely<Database>, query: RollupQuery) {
  const { choice, hours } = query;
  let select = db
    .selectFrom("log_rollups")
    .where("workspace_id", "=", query.workspaceId)
    .where("dim", "=", query.dayRows ? dayLevelOf(choice.dim) : choice.dim)
    .where("hour", ">=", hours.from)
    .where("hour", "<", hours.to);
  if (choice.value !== undefined) select = select.where("value", "=", choice.value);
  if (query.keys !== undefined) select = query.keys.length === 0 ? select.where(sql<boolean>`1 = 0`) : select.where("value", "in", query.keys);
  if (query.success !== undefined) select = select.where("success", "=", query.success ? 1 : 0);
  return select;
}

/**
 * Sums the rollup rows `query` names per slice key, histograms included, in the database: one
 * row per key comes back.
 */
export async function addRollupAggregates(
  db: Kysely<Database>,
  query: RollupQuery,
  slice: AnalyticsSlice,
  into: SliceAggregates,
): Promise<void> {
  const histogramColumns = slice.kind === "total" ? [...LATENCY_COLUMNS, ...TTFT_COLUMNS] : LATENCY_COLUMNS;
  const columns: Columns = [
    ["requests", sql`sum(requests)`],
    ["errors", sql`sum(CASE WHEN success = 0 THEN requests ELSE 0 END)`],
    ["cost_usd", sql`sum(cost_usd)`],
    ["cost_saved_usd", sql`sum(cost_saved_usd)`],
    ["cache_hits", sql`sum(cache_hits)`],
    ["semantic_cache_hits", sql`sum(semantic_cache_hits)`],
    ["prompt_tokens", sql`sum(prompt_tokens)`],
    ["completion_tokens", sql`sum(completion_tokens)`],
    ["total_tokens", sql`sum(total_tokens)`],
    ["latency_min", sql`min(latency_min)`],
    ["latency_max", sql`max(latency_max)`],
    ["ttft_min", sql`min(ttft_min)`],
    ["ttft_max", sql`max(ttft_max)`],
    ...histogramColumns.map((column): [string, RawBuilder<unknown>] => [column, sql`sum(${sql.ref(column)})`]),
  ];
  const groupBy: string[] = [];
  if (slice.kind !== "total") {
    columns.push(["k", slice.kind === "time" ? sql`substr(hour, 1, ${sql.lit(PREFIX_LENGTH[slice.interval])})` : sql`value`]);
    groupBy.push("k");
  }
  let grouped = rollupRows(db, query).select(columns.map(([alias, expression]) => expression.as(alias)));
  if (groupBy.length > 0) grouped = grouped.groupBy(positions(columns, groupBy));
  const rows = (await grouped.execute()) as Row[];
  for (const row of rows) {
    // An aggregate over no rows (the total of an empty range) is one row of nulls.
    if (num(row.requests) === 0) continue;
    const aggregate = aggregateFor(into, sliceKey(slice, row.k, true));
    addSums(aggregate, row);
    LATENCY_COLUMNS.forEach((column, i) => (aggregate.latency.counts[i]! += num(row[column])));
    widen(aggregate.latency, numOrNull(row.latency_min), numOrNull(row.latency_max));
    if (slice.kind === "total") {
      TTFT_COLUMNS.forEach((column, i) => (aggregate.ttft.counts[i]! += num(row[column])));
      widen(aggregate.ttft, numOrNull(row.ttft_min), numOrNull(row.ttft_max));
    }
  }
}
