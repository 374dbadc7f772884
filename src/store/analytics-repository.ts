import type { Kysely } from "kysely";
import type { AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import { topGroups } from "../analytics/analytics-views.ts";
import { chooseRollup, splitByPeriods, type RollupChoice, type TimeRange } from "./analytics-plan.ts";
import { addRawAggregates, addRollupAggregates, inAnalyticsTransaction, planForRollupsAndEdges } from "./analytics-sql.ts";
import { topGroupKeys, type RangePart } from "./analytics-top-groups.ts";
import type { LogFilterSet } from "./log-filters.ts";
import { partitionedById } from "./log-id-bound.ts";
import { readRollupProgress } from "./log-rollup-build.ts";
import { createAnalyticsDimensionsRepository } from "./analytics-dimensions-repository.ts";
import { overflowsIn } from "./log-rollup-bound.ts";
import { dayLevelOf, decodeRollupValue, periodOf, rollupPeriodOf } from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/** A selection whose time range is fixed (the route resolves the defaults). */
export type AnalyticsSelection = LogFilterSet & TimeRange;

/** Aggregates of the stored logs, always scoped to one workspace. */
export interface AnalyticsRepository {
  /**
   * The records of `selection.workspaceId` matching the logs filters in `[from, to)`, summed
   * per slice key. Keys with no records are absent. Whole UTC periods come from the rollups when
   * every filter and the slice fit one rollup dimension (`chooseRollup`) and the period is built
   * (PostgreSQL sums closed hours in the background), the partial hours at either end, the periods not built yet and every other query from the raw rows (so the result is exact whatever the range); both give the same sums and histograms.
   * A group slice with a `limit` sums only its first `limit` groups in `compareGroups` order
   * (`analytics/analytics-views.ts`), chosen in the database over the whole range.
   * `via: "raw"` forces the raw rows (tests compare the two paths).
   */
  aggregate(selection: AnalyticsSelection, slice: AnalyticsSlice, options?: { via?: "raw" }): Promise<SliceAggregates>;
}

export function createAnalyticsRepository(db: Kysely<Database>): AnalyticsRepository {
  return {
    aggregate: (selection, slice, options) => inAnalyticsTransaction(db, selection, slice, (db) => aggregate(db, selection, slice, options)),
  };
}

async function aggregate(db: Kysely<Database>, selection: AnalyticsSelection, slice: AnalyticsSlice, options?: { via?: "raw" }): Promise<SliceAggregates> {
  const into: SliceAggregates = new Map();
  const choice = options?.via === "raw" ? null : await rollupChoice(db, selection, slice);
  const parts = choice ? await rollupParts(db, selection, slice, choice) : [{ kind: "raw" as const, selection }];
  const limit = slice.kind === "group" ? slice.limit : undefined;
  const [only] = parts;
  // Raw rows alone: one statement sums every group (a few rows each, one per latency
  // bucket) and the first ones are kept here; ranking in SQL first (a window over the
  // grouped rows) made PostgreSQL give up its parallel plan, five times slower at 500,000 rows.
  if (parts.length === 1 && only?.kind === "raw") {
    await addRawAggregates(db, only.selection, slice, into);
    return limit === undefined ? into : topGroups(into, limit);
  }
  // Rollups and raw edges: the first groups over all parts, then only theirs summed whole.
  if (parts.every(isRollupOrEdge)) await planForRollupsAndEdges(db);
  const keys = slice.kind === "group" && slice.limit !== undefined ? await topGroupKeys(db, slice, parts, slice.limit) : undefined;
  if (keys?.length === 0) return into;
  const rawKeys = keys?.map(decodeRollupValue);
  for (const part of parts) {
    if (part.kind === "rollup") await addRollupAggregates(db, { ...part.query, keys }, slice, into);
    else await addRawAggregates(db, part.selection, slice, into, rawKeys);
  }
  return into;
}

/**
 * Raw parts at most this long are a range's edges (its partial hours, the hours the build has not
 * reached): a few hours of one workspace. A longer one (the days before a declared key's
 * `rollups_from`) is read with the planner's own choices, a scan among them.
 */
const EDGE_MAX_MS = 6 * 3_600_000;

function isRollupOrEdge(part: RangePart): boolean {
  if (part.kind === "rollup") return true;
  const { from, to } = part.selection;
  return from !== undefined && to !== undefined && Date.parse(to) - Date.parse(from) <= EDGE_MAX_MS;
}

/**
 * The rollups that answer the query exactly, or null. A declared metadata key's are read only
 * where they hold every record (from its `rollups_from`), and not at all when a period of the
 * range kept more values than the bound (`log-rollup-bound.ts`).
 */
async function rollupChoice(db: Kysely<Database>, selection: AnalyticsSelection, slice: AnalyticsSlice): Promise<RollupChoice | null> {
  const onMetadata = Object.keys(selection.metadata ?? {}).length > 0 || (slice.kind === "group" && slice.by === "metadata");
  const declared = onMetadata ? await createAnalyticsDimensionsRepository(db).list(selection.workspaceId) : [];
  const choice = chooseRollup(selection, slice, new Map(declared.map((dimension) => [dimension.key, dimension.rollupsFrom])), partitionedById(db));
  if (!choice?.from) return choice;
  const from = Date.parse(choice.from) > Date.parse(selection.from) ? choice.from : selection.from;
  const dims = [choice.dim, dayLevelOf(choice.dim)];
  return (await overflowsIn(db, selection.workspaceId, dims, periodOf(from, "day"), selection.to)) ? null : choice;
}

/**
 * The parts of the range for a query the rollups answer: whole built periods from the rollups,
 * the rest (partial periods at either end; on PostgreSQL, what the background build has not
 * summed yet) from the raw rows.
 */
async function rollupParts(db: Kysely<Database>, selection: AnalyticsSelection, slice: AnalyticsSlice, choice: RollupChoice): Promise<RangePart[]> {
  const postgres = partitionedById(db);
  const progress = postgres ? await readRollupProgress(db) : undefined;
  const builtUntil = progress?.builtUntil;
  const period = rollupPeriodOf(choice.dim, postgres);
  const { hours, edges } = splitByPeriods(selection, period, builtUntil, choice.from);
  const rollups = { workspaceId: selection.workspaceId, success: selection.success, choice };
  const parts: RangePart[] = [];
  const raw = (range: TimeRange) => parts.push({ kind: "raw", selection: { ...selection, ...range } });
  if (hours) {
    // PostgreSQL also keeps day rows: whole days read one row per key, only the hours at either
    // end read hour rows. Hourly buckets need the hour rows.
    const dayRows = postgres && !(slice.kind === "time" && slice.interval === "hour");
    const { hours: days, edges: edgeHours } = dayRows ? splitByPeriods(hours, "day", builtUntil, choice.from) : { hours: null, edges: [hours] };
    if (days) parts.push({ kind: "rollup", query: { ...rollups, hours: days, dayRows: true } });
    // End users have hour rows from `userHoursFrom` on (migration 0028): the hours before it are raw.
    const hoursFrom = choice.dim === "user" ? progress?.userHoursFrom : undefined;
    for (const range of edgeHours) {
      const { hours: summed, edges: unsummed } = hoursFrom === undefined ? { hours: range, edges: [] } : splitByPeriods(range, "hour", undefined, hoursFrom);
      if (summed) parts.push({ kind: "rollup", query: { ...rollups, hours: summed } });
      unsummed.forEach(raw);
    }
  }
  edges.forEach(raw);
  return parts;
}
