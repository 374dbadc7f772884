import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import type { LogSelection } from "./log-filter-sql.ts";
import { encodeRollupValue, type RollupDimension } from "./log-rollup-rows.ts";

/** Which rollup rows answer a query: one dimension's, optionally of one value. */
export interface RollupChoice {
  dim: RollupDimension;
  /** The stored (encoded) value to keep, when the dimension is also filtered on. */
  value?: string;
}

const HOUR_MS = 3_600_000;

/** The filters that are rollup dimensions, with the value each was given. */
function dimensionFilters(selection: LogSelection): Array<[RollupDimension, string | number]> {
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
 * prompt or metadata filter, grouping by metadata, minute buckets (rollups are hourly), or more
 * than one dimension involved (each record is summed per dimension, never per combination).
 * `success` is part of every rollup key, so it never prevents the rollups.
 */
export function chooseRollup(selection: LogSelection, slice: AnalyticsSlice): RollupChoice | null {
  if (selection.traceId !== undefined || selection.promptId !== undefined) return null;
  if (Object.keys(selection.metadata ?? {}).length > 0) return null;
  if (slice.kind === "time" && slice.interval === "minute") return null;
  const filters = dimensionFilters(selection);
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
 * Cuts `[from, to)` into the whole UTC hours inside it (for the rollups) and the partial hours
 * at either end (for the raw rows, at most an hour each). No whole hour: all of it is raw.
 */
export function splitByHours(range: TimeRange): { hours: TimeRange | null; edges: TimeRange[] } {
  const from = Date.parse(range.from);
  const to = Date.parse(range.to);
  const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const lastHour = Math.floor(to / HOUR_MS) * HOUR_MS;
  if (firstHour >= lastHour) return { hours: null, edges: [range] };
  const iso = (ms: number) => new Date(ms).toISOString();
  const edges: TimeRange[] = [];
  if (from < firstHour) edges.push({ from: range.from, to: iso(firstHour) });
  if (lastHour < to) edges.push({ from: iso(lastHour), to: range.to });
  return { hours: { from: iso(firstHour), to: iso(lastHour) }, edges };
}
