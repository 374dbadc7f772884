import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import type { LogFilterSet } from "./log-filters.ts";
import { encodeRollupValue, ROLLUP_PERIOD, type RollupDimension } from "./log-rollup-rows.ts";

/** Which rollup rows answer a query: one dimension's, optionally of one value. */
export interface RollupChoice {
  dim: RollupDimension;
  /** The stored (encoded) value to keep, when the dimension is also filtered on. */
  value?: string;
}

const PERIOD_MS = { hour: 3_600_000, day: 86_400_000 } as const;

const RAW_ONLY_FILTERS = [
  "config",
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
 * prompt or metadata filter, grouping by metadata, buckets shorter than the dimension's period
 * (minutes; hours for end users), or more than one dimension involved (each record is summed
 * per dimension, never per combination).
 * `success` is part of every rollup key, so it never prevents the rollups.
 */
export function chooseRollup(selection: LogFilterSet, slice: AnalyticsSlice): RollupChoice | null {
  if (selection.traceId !== undefined || selection.promptId !== undefined) return null;
  // Filters on what rollups do not keep (config, status class, value ranges) need the raw rows.
  if (RAW_ONLY_FILTERS.some((name) => selection[name] !== undefined)) return null;
  if (Object.keys(selection.metadata ?? {}).length > 0) return null;
  const filters = dimensionFilters(selection);
  const choice = dimensionChoice(filters, slice);
  if (!choice || slice.kind !== "time") return choice;
  const period = ROLLUP_PERIOD[choice.dim];
  return slice.interval === "day" || (slice.interval === "hour" && period === "hour") ? choice : null;
}

function dimensionChoice(filters: Array<[RollupDimension, string | number]>, slice: AnalyticsSlice): RollupChoice | null {
  if (slice.kind === "group") {
    if (slice.by === "metadata") return null;
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
 * from its own period on are read raw too.
 */
export function splitByPeriods(range: TimeRange, period: "hour" | "day", builtUntil?: string): { hours: TimeRange | null; edges: TimeRange[] } {
  const size = PERIOD_MS[period];
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  const firstHour = Math.ceil(from / size) * size;
  const built = builtUntil === undefined ? Infinity : Math.floor(Date.parse(builtUntil) / size) * size;
  const lastHour = Math.min(Math.floor(to / size) * size, built);
  if (firstHour >= lastHour) return { hours: null, edges: [range] };
  const iso = (ms: number) => new Date(ms).toISOString();
  const edges: TimeRange[] = [];
  if (from < firstHour) edges.push({ from: range.from, to: iso(firstHour) });
  if (lastHour < to) edges.push({ from: iso(lastHour), to: range.to });
  return { hours: { from: iso(firstHour), to: iso(lastHour) }, edges };
}
