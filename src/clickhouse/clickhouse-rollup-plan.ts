import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import type { LogFilterSet } from "../store/log-filters.ts";
import { encodeRollupValue } from "../store/log-rollup-rows.ts";
import { str } from "./clickhouse-sql.ts";

/** Which rollup table answers a query, and how it is read. */
export interface ClickHouseRollup {
  table:
    | "log_rollups_hourly_dims"
    | "log_rollups_hourly"
    | "log_rollups_user_days"
    | "log_rollups_user_hours"
    | "log_rollups_hourly_meta"
    | "log_rollups_hourly_keysets"
    | "log_user_hours";
  /** Its rows' length. */
  period: "hour" | "day";
  /** The time column, and a literal of it from epoch seconds. */
  time: string;
  toTime(seconds: number): string;
  /** Key column = value conditions for the dimension filters (values encoded as stored). */
  filters: Array<[column: string, value: string | number]>;
  /** A further condition on its rows, as SQL. */
  condition?: string;
  /** The expression a slice is keyed by (null for the total), as the raw path keys it. */
  key(slice: AnalyticsSlice): string | null;
  /**
   * A group by this metadata key: the rollup holds the records that have the key; those that
   * do not (the null group) are read from the key-set rollup (`withoutKeyRollup`).
   */
  withoutKey?: string;
  /**
   * The key column a group's value is stored in (encoded as `encodeRollupValue`): the groups a
   * query keeps are chosen on it, so the primary key narrows the read to their rows.
   */
  groupColumn?: string;
  /** Counts and cost as plain sums (`log_user_hours`), no states: it ranks groups, nothing more. */
  rankingOnly?: true;
}

/** Filters no rollup keeps: only the raw rows answer a query with one. */
const RAW_ONLY_FILTERS = [
  "traceId",
  "promptId",
  "experimentId",
  "experimentVariant",
  "cacheStatus",
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

/** A stored key column (`''` for null, else `=value`) back to the value, null for none. */
const decoded = (column: string) => `if(${column} = '', NULL, substring(${column}, 2))`;

/**
 * The rollup that answers a query exactly, or null when only the raw rows can.
 * - `log_rollups_hourly_dims` keeps each hour per value of one of model, provider, virtual key and
 *   status (and all records): a total or a series, filtered or grouped on at most one of them.
 * - `log_rollups_hourly` keeps every combination of them per hour: filters and a group on several.
 * - `log_rollups_user_days` keeps end users per UTC day: a user filter or a group by user,
 *   with daily buckets at most, and no other dimension (its partial days' whole hours are read
 *   from `log_rollups_user_hours`: `hoursOfPartialDays`); with hourly buckets, that rollup itself.
 * - `log_rollups_hourly_meta` keeps each hour per metadata pair: one metadata filter, or a group
 *   by a metadata key, with no other dimension (a group by the filtered key has one group).
 * Several metadata keys, traces, prompts, experiments, cache status, configs, status classes and value
 * ranges: raw rows.
 */
export function chooseClickHouseRollup(selection: LogFilterSet, slice: AnalyticsSlice): ClickHouseRollup | null {
  if (RAW_ONLY_FILTERS.some((name) => selection[name] !== undefined)) return null;
  if (slice.kind === "time" && slice.interval === "minute") return null;
  // No rollup keeps experiment variants.
  if (slice.kind === "group" && slice.by === "experiment_variant") return null;
  const metadata = Object.entries(selection.metadata ?? {});
  if (metadata.length > 0 || (slice.kind === "group" && slice.by === "metadata")) return metadataRollup(selection, slice, metadata);
  const dimensions: Array<[dim: HourlyDimension, value: string | number]> = [];
  if (selection.model !== undefined) dimensions.push(["model", selection.model]);
  if (selection.provider !== undefined) dimensions.push(["provider", selection.provider]);
  if (selection.virtualKeyId !== undefined) dimensions.push(["virtual_key_id", selection.virtualKeyId]);
  if (selection.status !== undefined) dimensions.push(["status", selection.status]);
  const byUser = selection.user !== undefined || (slice.kind === "group" && slice.by === "user");
  if (!byUser) {
    const involved = new Set<string>(dimensions.map(([dim]) => dim));
    if (slice.kind === "group") involved.add(slice.by);
    if (involved.size > 1) {
      return hourly(dimensions.map(([dim, value]) => (dim === "status" ? ["status", value] : [`${dim}_key`, encodeRollupValue(value)])));
    }
    const [dim] = [...involved];
    const filter = dimensions[0];
    return hourlyDims(dim ?? "all", filter ? encodeRollupValue(filter[1]) : undefined);
  }
  if (dimensions.length > 0 || (slice.kind === "group" && slice.by !== "user")) return null;
  const filters: ClickHouseRollup["filters"] = selection.user === undefined ? [] : [["end_user_key", encodeRollupValue(selection.user)]];
  if (slice.kind === "time" && slice.interval === "hour") return hourlyUsers(filters);
  return dailyUsers(filters);
}

/** The metadata rollup for a query on at most one metadata key and nothing else, or null. */
function metadataRollup(selection: LogFilterSet, slice: AnalyticsSlice, metadata: Array<[string, string]>): ClickHouseRollup | null {
  const others = [selection.model, selection.provider, selection.virtualKeyId, selection.status, selection.user];
  if (others.some((value) => value !== undefined) || metadata.length > 1) return null;
  if (slice.kind === "group" && slice.by !== "metadata") return null;
  const groupKey = slice.kind === "group" ? (slice.metadataKey ?? "") : undefined;
  const [filter] = metadata;
  if (filter && groupKey !== undefined && groupKey !== filter[0]) return null;
  return {
    table: "log_rollups_hourly_meta",
    period: "hour",
    time: "hour",
    toTime: (seconds) => `toDateTime(${seconds})`,
    filters: filter ? [["key", filter[0]], ["value", filter[1]]] : [["key", groupKey!]],
    key(slice) {
      if (slice.kind === "total") return null;
      if (slice.kind === "time") return slice.interval === "day" ? "intDiv(toUInt32(hour), 86400) * 86400000" : "toUInt32(hour) * 1000";
      return "value";
    },
    // With the key filtered on, every record the query counts has it: no null group.
    ...(filter || groupKey === undefined ? {} : { withoutKey: groupKey }),
  };
}

type HourlyDimension = "model" | "provider" | "virtual_key_id" | "status";

/** The hourly rows of one dimension (`all`: every record), of one value when it is filtered on. */
function hourlyDims(dim: string, value: string | undefined): ClickHouseRollup {
  return {
    table: "log_rollups_hourly_dims",
    period: "hour",
    time: "hour",
    toTime: (seconds) => `toDateTime(${seconds})`,
    filters: [["dim", dim], ...(value === undefined ? [] : ([["value", value]] as ClickHouseRollup["filters"]))],
    groupColumn: "value",
    key(slice) {
      if (slice.kind === "total") return null;
      if (slice.kind === "time") return slice.interval === "day" ? "intDiv(toUInt32(hour), 86400) * 86400000" : "toUInt32(hour) * 1000";
      return decoded("value");
    },
  };
}

function hourly(filters: ClickHouseRollup["filters"]): ClickHouseRollup {
  return {
    table: "log_rollups_hourly",
    period: "hour",
    time: "hour",
    toTime: (seconds) => `toDateTime(${seconds})`,
    filters,
    key(slice) {
      if (slice.kind === "total") return null;
      if (slice.kind === "time") return slice.interval === "day" ? "intDiv(toUInt32(hour), 86400) * 86400000" : "toUInt32(hour) * 1000";
      if (slice.by === "status") return "toString(status)";
      return decoded(`${slice.by}_key`);
    },
  };
}

/** The hourly rows of the records without metadata key `key`: a metadata group's null group. */
export function withoutKeyRollup(key: string): ClickHouseRollup {
  return {
    table: "log_rollups_hourly_keysets",
    period: "hour",
    time: "hour",
    toTime: (seconds) => `toDateTime(${seconds})`,
    filters: [],
    condition: `NOT has(keys, ${str(key)})`,
    key: (slice) => (slice.kind === "group" ? "NULL" : null),
  };
}

function dailyUsers(filters: ClickHouseRollup["filters"]): ClickHouseRollup {
  return {
    table: "log_rollups_user_days",
    period: "day",
    time: "day",
    toTime: (seconds) => String(Math.trunc(seconds / 86_400)),
    filters,
    groupColumn: "end_user_key",
    key: (slice) => (slice.kind === "total" ? null : slice.kind === "time" ? "day * 86400000" : decoded("end_user_key")),
  };
}

function hourlyUsers(filters: ClickHouseRollup["filters"]): ClickHouseRollup {
  return {
    table: "log_rollups_user_hours",
    period: "hour",
    time: "hour",
    toTime: (seconds) => String(Math.trunc(seconds / 3_600)),
    filters,
    groupColumn: "end_user_key",
    key(slice) {
      if (slice.kind === "total") return null;
      if (slice.kind === "time") return slice.interval === "day" ? "intDiv(hour, 24) * 86400000" : "hour * 3600000";
      return decoded("end_user_key");
    },
  };
}

/**
 * The rollup of the whole hours within the partial days at either end of a range read from
 * `rollup` (the end users' hours for their days), or null when its edges have no such rollup.
 */
export function hoursOfPartialDays(rollup: ClickHouseRollup): ClickHouseRollup | null {
  return rollup.table === "log_rollups_user_days" ? hourlyUsers(rollup.filters) : null;
}

/** The plain counts that rank the groups of a rollup, where it has them. */
const RANKED_BY: Partial<Record<ClickHouseRollup["table"], ClickHouseRollup["table"]>> = {
  log_rollups_user_hours: "log_user_hours",
};

/**
 * What ranks a group over `rollup`'s rows: for the end users' hours, their plain counts
 * (`log_user_hours`) under the same filters, faster to sum than the states; for the other
 * rollups, the rollup itself (the end users' day states rank fast: their 30-day partitions keep
 * their parts few and merged).
 */
export function rankingRollup(rollup: ClickHouseRollup): ClickHouseRollup {
  const table = RANKED_BY[rollup.table];
  return table ? { ...rollup, table, rankingOnly: true } : rollup;
}
