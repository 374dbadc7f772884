import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import type { LogFilterSet } from "./log-filters.ts";
import { encodeRollupValue, metadataDimensionOf, rollupPeriodOf, type AnyRollupDimension, type RollupDimension } from "./log-rollup-rows.ts";

/** Which rollup rows answer a query: one dimension's, optionally of one value. */
export interface RollupChoice {
  dim: AnyRollupDimension;
  /** The stored (encoded) value to keep, when the dimension is also filtered on. */
  value?: string;
  /** A declared metadata key's `rollups_from`: the rollups hold nothing complete before it. */
  from?: string;
}

/** The workspace's declared metadata keys, each with its `rollups_from`. */
export type DeclaredFrom = ReadonlyMap<string, string>;

const PERIOD_MS = { hour: 3_600_000, day: 86_400_000 } as const;

const RAW_ONLY_FILTERS = [
  "config",
  "experimentId",
  "experimentVariant",
  "statusClass",
  "minTotalTokens",
  "maxTotalTokens",
  "minCostUsd",
  "maxCostUsd",
  "minLatencyMs",
  "maxLatencyMs",
  "minTimeToFirstTokenMs",
  "maxTimeToFirstTokenMs",
] as const satisfies ReadonlyArray<keyof LogFilterSet>;

/** The filters that are rollup dimensions, with the value each was given. */
function dimensionFilters(selection: LogFilterSet): Array<[RollupDimension, string | number]> {
  const present: Array<[RollupDimension, string | number | undefined]> = [
    ["user", selection.user],
    ["model", selection.model],
    ["provider", selection.provider],
    ["virtual_key_id", selection.virtualKeyId],
    ["status", selection.status],
  ];
  return present.filter((entry): entry is [RollupDimension, string | number] => entry[1] !== undefined);
}

/**
 * The rollup rows that answer a query exactly, or null when only the raw rows can: a trace,
 * prompt, experiment or metadata filter, a group by experiment variant, grouping by metadata, buckets shorter than the dimension's period
 * (minutes; hours for end users where they are summed per day), or more than one dimension
 * involved (each record is summed per dimension, never per combination).
 * `success` is part of every rollup key, so it never prevents the rollups.
 * `everyDimensionHourly`: the store sums end users per hour too (PostgreSQL, `rollupPeriodOf`).
 */
export function chooseRollup(selection: LogFilterSet, slice: AnalyticsSlice, declared: DeclaredFrom = new Map(), everyDimensionHourly = false): RollupChoice | null {
  if (selection.traceId !== undefined || selection.promptId !== undefined) return null;
  // No rollup keeps experiment variants.
  if (slice.kind === "group" && slice.by === "experiment_variant") return null;
  // Filters on what rollups do not keep (config, status class, value ranges) need the raw rows.
  if (RAW_ONLY_FILTERS.some((name) => selection[name] !== undefined)) return null;
  const filters = dimensionFilters(selection);
  const metadata = Object.entries(selection.metadata ?? {});
  const choice = metadata.length > 0 || (slice.kind === "group" && slice.by === "metadata") ? metadataChoice(filters, metadata, slice, declared) : dimensionChoice(filters, slice);
  if (!choice || slice.kind !== "time") return choice;
  const period = rollupPeriodOf(choice.dim, everyDimensionHourly);
  return slice.interval === "day" || (slice.interval === "hour" && period === "hour") ? choice : null;
}

/**
 * A query on one declared metadata key (filtered on one value, grouped by it, or both) and no
 * other dimension reads that key's rollups; any other metadata query reads the raw rows.
 */
function metadataChoice(
  filters: Array<[RollupDimension, string | number]>,
  metadata: Array<[string, string]>,
  slice: AnalyticsSlice,
  declared: DeclaredFrom,
): RollupChoice | null {
  if (filters.length > 0 || metadata.length > 1) return null;
  const grouped = slice.kind === "group" ? (slice.by === "metadata" ? slice.metadataKey : null) : undefined;
  if (grouped === null) return null;
  const [filtered] = metadata;
  if (grouped !== undefined && filtered !== undefined && filtered[0] !== grouped) return null;
  const key = grouped ?? filtered![0];
  const from = declared.get(key);
  if (from === undefined) return null;
  const choice: RollupChoice = { dim: metadataDimensionOf(key), from };
  if (filtered !== undefined) choice.value = encodeRollupValue(filtered[1]);
  return choice;
}

function dimensionChoice(filters: Array<[RollupDimension, string | number]>, slice: AnalyticsSlice): RollupChoice | null {
  if (slice.kind === "group") {
    if (slice.by === "metadata" || slice.by === "experiment_variant") return null;
    const by = slice.by;
    if (filters.some(([dim]) => dim !== by)) return null;
    const own = filters.find(([dim]) => dim === by);
    return own ? { dim: by, value: encodeRollupValue(own[1]) } : { dim: by };
  }
  if (filters.length > 1) return null;
  const [only] = filters;
  return only ? { dim: only[0], value: encodeRollupValue(only[1]) } : { dim: "all" };
}

/** A half-open time range of ISO instants. */
export interface TimeRange {
  from: string;
  to: string;
}

/**
 * Cuts `[from, to)` into the whole UTC periods (hours or days) inside it, for the rollups, and
 * the partial periods at either end, for the raw rows. No whole period: all of it is raw.
 * `builtUntil` (ISO, PostgreSQL): the rollups hold nothing from that instant on, so whole periods
 * from its own period on are read raw too. `builtFrom` (a declared key's `rollups_from`): nor
 * anything complete before it, so whole periods before it are read raw.
 */
export function splitByPeriods(range: TimeRange, period: "hour" | "day", builtUntil?: string, builtFrom?: string): { hours: TimeRange | null; edges: TimeRange[] } {
  const size = PERIOD_MS[period];
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  const firstHour = Math.ceil(Math.max(from, builtFrom === undefined ? -Infinity : Date.parse(builtFrom)) / size) * size;
  const built = builtUntil === undefined ? Infinity : Math.floor(Date.parse(builtUntil) / size) * size;
  const lastHour = Math.min(Math.floor(to / size) * size, built);
  if (firstHour >= lastHour) return { hours: null, edges: [range] };
  const iso = (ms: number) => new Date(ms).toISOString();
  const edges: TimeRange[] = [];
  if (from < firstHour) edges.push({ from: range.from, to: iso(firstHour) });
  if (lastHour < to) edges.push({ from: iso(lastHour), to: range.to });
  return { hours: { from: iso(firstHour), to: iso(lastHour) }, edges };
}
