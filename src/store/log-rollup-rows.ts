import { bucketOf, HISTOGRAM_BUCKETS } from "../analytics/latency-histogram.ts";
import type { LogRecord } from "../records/log-record.ts";

/** "00" … "63": one histogram bucket's column suffix (see `analytics/latency-histogram.ts`). */
type BucketId =
  | "00" | "01" | "02" | "03" | "04" | "05" | "06" | "07" | "08" | "09" | "10" | "11" | "12" | "13" | "14" | "15"
  | "16" | "17" | "18" | "19" | "20" | "21" | "22" | "23" | "24" | "25" | "26" | "27" | "28" | "29" | "30" | "31"
  | "32" | "33" | "34" | "35" | "36" | "37" | "38" | "39" | "40" | "41" | "42" | "43" | "44" | "45" | "46" | "47"
  | "48" | "49" | "50" | "51" | "52" | "53" | "54" | "55" | "56" | "57" | "58" | "59" | "60" | "61" | "62" | "63";

export type LatencyColumn = `lat_${BucketId}`;
export type TtftColumn = `ttft_${BucketId}`;

const bucketIds = Array.from({ length: HISTOGRAM_BUCKETS }, (_, i) => String(i).padStart(2, "0") as BucketId);
export const LATENCY_COLUMNS: readonly LatencyColumn[] = bucketIds.map((id) => `lat_${id}` as const);
export const TTFT_COLUMNS: readonly TtftColumn[] = bucketIds.map((id) => `ttft_${id}` as const);

/** The dimensions a rollup row is keyed by, beside workspace, hour and success. */
export const ROLLUP_DIMENSIONS = ["all", "user", "model", "provider", "virtual_key_id", "status"] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/**
 * How long a rollup row's period is, per dimension. End users are many (hundreds active in an
 * hour is common), so hourly user rows would be nearly as many as the logs themselves: they are
 * summed per UTC day instead, twenty-four times fewer, at the price of hourly user series (and
 * the partial days at a range's ends) being read from the raw rows.
 */
export const ROLLUP_PERIOD: Record<RollupDimension, "hour" | "day"> = {
  all: "hour",
  user: "day",
  model: "hour",
  provider: "hour",
  virtual_key_id: "hour",
  status: "hour",
};

/**
 * One workspace's records of one UTC hour (a day for users) with one value of one dimension and one `success`:
 * their count, sums, latency extremes and log-scale histograms. Each record counts once per
 * dimension (six rows), so any query filtering or grouping by at most one dimension reads only
 * that dimension's rows: far fewer than one row per combination of every dimension would be.
 */
export type LogRollupsTable = {
  workspace_id: string;
  /** The period's start, `YYYY-MM-DDTHH:00:00.000Z` (the day's for `user`, see `ROLLUP_PERIOD`). */
  hour: string;
  dim: RollupDimension;
  /** `''` for null (and for `all`), else `=` and the value (a status as decimal text). */
  value: string;
  /** 0/1. */
  success: number;
  requests: number;
  // Sums are double precision: exact up to 2^53, where `integer` would overflow in PostgreSQL.
  cost_usd: number;
  /** Cache hits, exact and semantic, and what they saved (migration 0021). */
  cache_hits: number;
  semantic_cache_hits: number;
  cost_saved_usd: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_min: number;
  latency_max: number;
  ttft_min: number | null;
  ttft_max: number | null;
} & { [C in LatencyColumn | TtftColumn]: number };

/** The key columns, in primary-key order. */
export const ROLLUP_KEY_COLUMNS = ["workspace_id", "dim", "value", "hour", "success"] as const;
/** Columns an upsert adds to the stored row. */
export const ROLLUP_SUM_COLUMNS = [
  "requests",
  "cost_usd",
  "cache_hits",
  "semantic_cache_hits",
  "cost_saved_usd",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  ...LATENCY_COLUMNS,
  ...TTFT_COLUMNS,
] as const;
/** Columns an upsert keeps the smaller or the larger of. */
export const ROLLUP_MIN_COLUMNS = ["latency_min", "ttft_min"] as const;
export const ROLLUP_MAX_COLUMNS = ["latency_max", "ttft_max"] as const;
export const ROLLUP_COLUMNS = [...ROLLUP_KEY_COLUMNS, ...ROLLUP_SUM_COLUMNS, ...ROLLUP_MIN_COLUMNS, ...ROLLUP_MAX_COLUMNS] as const;

/** How a dimension value is stored in `value`: null as `''`, anything else behind `=`. */
export function encodeRollupValue(value: string | number | null): string {
  return value === null ? "" : `=${value}`;
}

export function decodeRollupValue(stored: string): string | null {
  return stored === "" ? null : stored.slice(1);
}

/** The start of the UTC hour or day an ISO instant falls in, as stored in `hour`. */
export function periodOf(iso: string, period: "hour" | "day"): string {
  const normal = new Date(Date.parse(iso)).toISOString();
  return period === "hour" ? `${normal.slice(0, 13)}:00:00.000Z` : `${normal.slice(0, 10)}T00:00:00.000Z`;
}

function dimensionValue(record: LogRecord, dim: RollupDimension): string | number | null {
  switch (dim) {
    case "all":
      return null;
    case "user":
      return record.user;
    case "model":
      return record.model;
    case "provider":
      return record.provider;
    case "virtual_key_id":
      return record.virtualKeyId;
    case "status":
      return record.status;
  }
}

function emptyRow(key: Pick<LogRollupsTable, (typeof ROLLUP_KEY_COLUMNS)[number]>): LogRollupsTable {
  const row: Record<string, string | number | null> = {
    ...key,
    requests: 0,
    cost_usd: 0,
    cache_hits: 0,
    semantic_cache_hits: 0,
    cost_saved_usd: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    latency_min: Infinity,
    latency_max: -Infinity,
    ttft_min: null,
    ttft_max: null,
  };
  for (const column of [...LATENCY_COLUMNS, ...TTFT_COLUMNS]) row[column] = 0;
  return row as LogRollupsTable;
}

/**
 * The rollup deltas of a batch of records, already summed per key, ready to be added to the
 * stored rows (`+` for sums, min/max for the extremes). Six keys per record at most.
 */
export function toRollupRows(records: readonly LogRecord[]): LogRollupsTable[] {
  const rows = new Map<string, LogRollupsTable>();
  for (const record of records) {
    const hour = periodOf(record.createdAt, "hour");
    const day = periodOf(record.createdAt, "day");
    const success = record.success ? 1 : 0;
    const latencyColumn = LATENCY_COLUMNS[bucketOf(record.latencyMs)]!;
    const ttft = record.timeToFirstTokenMs;
    for (const dim of ROLLUP_DIMENSIONS) {
      const value = encodeRollupValue(dimensionValue(record, dim));
      const start = ROLLUP_PERIOD[dim] === "hour" ? hour : day;
      const id = `${record.workspaceId}\u0000${start}\u0000${dim}\u0000${value}\u0000${success}`;
      let row = rows.get(id);
      if (!row) {
        row = emptyRow({ workspace_id: record.workspaceId, hour: start, dim, value, success });
        rows.set(id, row);
      }
      row.requests += 1;
      row.cost_usd += record.costUsd ?? 0;
      if (record.cacheStatus === "HIT") row.cache_hits += 1;
      else if (record.cacheStatus === "SEMANTIC_HIT") row.semantic_cache_hits += 1;
      row.cost_saved_usd += record.costSavedUsd ?? 0;
      row.prompt_tokens += record.promptTokens;
      row.completion_tokens += record.completionTokens;
      row.total_tokens += record.totalTokens;
      row.latency_min = Math.min(row.latency_min, record.latencyMs);
      row.latency_max = Math.max(row.latency_max, record.latencyMs);
      row[latencyColumn] += 1;
      if (ttft !== null) {
        row[TTFT_COLUMNS[bucketOf(ttft)]!] += 1;
        row.ttft_min = row.ttft_min === null ? ttft : Math.min(row.ttft_min, ttft);
        row.ttft_max = row.ttft_max === null ? ttft : Math.max(row.ttft_max, ttft);
      }
    }
  }
  return [...rows.values()];
}
