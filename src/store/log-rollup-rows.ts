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
 * How long a rollup row's period is, per dimension, in the embedded store. End users are many
 * (hundreds active in an hour is common), and the embedded store keeps hour rows only: hourly
 * user rows would make a month's groups by user read nearly as many rows as the logs, so they
 * are summed per UTC day instead, at the price of hourly user series (and the partial days at a
 * range's ends) being read from the raw rows. PostgreSQL keeps day rows of every dimension beside
 * its hour rows, so there end users are summed per hour too (`everyDimensionHourly`).
 */
export const ROLLUP_PERIOD: Record<RollupDimension, "hour" | "day"> = {
  all: "hour",
  user: "day",
  model: "hour",
  provider: "hour",
  virtual_key_id: "hour",
  status: "hour",
};

/** A metadata key a workspace declared as a dimension (`analytics_dimensions`): summed per hour, like a model. */
export type MetadataDimension = `meta:${string}`;
export const metadataDimensionOf = (key: string): MetadataDimension => `meta:${key}`;
export const isMetadataDimension = (dim: string): boolean => dim.startsWith("meta:") || dim.startsWith("day:meta:");
/** Any dimension a rollup row may be keyed by. */
export type AnyRollupDimension = RollupDimension | MetadataDimension;

export type DayLevelDimension = `day:${AnyRollupDimension}`;
export const dayLevelOf = (dim: AnyRollupDimension): DayLevelDimension => `day:${dim}`;

/**
 * The period of a dimension's rows: `ROLLUP_PERIOD`, and hours for metadata keys; hours for every
 * dimension where the store keeps day rows too (`everyDimensionHourly`, PostgreSQL).
 */
export function rollupPeriodOf(dim: AnyRollupDimension, everyDimensionHourly = false): "hour" | "day" {
  return everyDimensionHourly || dim.startsWith("meta:") ? "hour" : ROLLUP_PERIOD[dim as RollupDimension];
}

/**
 * The declared metadata keys per workspace the rollups sum (`analytics-dimensions-repository.ts`).
 * A workspace absent has none.
 */
export type DeclaredKeys = ReadonlyMap<string, readonly string[]>;

/**
 * One workspace's records of one UTC hour (a day for users) with one value of one dimension and one `success`:
 * their count, sums, latency extremes and log-scale histograms. Each record counts once per
 * dimension (six rows), so any query filtering or grouping by at most one dimension reads only
 * that dimension's rows: far fewer than one row per combination of every dimension would be.
 */
export type LogRollupsTable = {
  workspace_id: string;
  /** The period's start, `YYYY-MM-DDTHH:00:00.000Z` (the day's for `user` in the embedded store, see `ROLLUP_PERIOD`). */
  hour: string;
  /**
   * A dimension (per its `rollupPeriodOf`), a declared metadata key (`meta:<key>`, hourly), or
   * `day:<dim>`: a dimension's day rows (PostgreSQL, `log-rollup-build.ts`).
   */
  dim: AnyRollupDimension | DayLevelDimension;
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

function dimensionValue(record: RollupInput, dim: RollupDimension): string | number | null {
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

/** One rollup key's running sums, histograms as arrays (named columns only on output). */
interface RollupSums {
  key: Pick<LogRollupsTable, (typeof ROLLUP_KEY_COLUMNS)[number]>;
  requests: number;
  costUsd: number;
  cacheHits: number;
  semanticCacheHits: number;
  costSavedUsd: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latencyMin: number;
  latencyMax: number;
  ttftMin: number | null;
  ttftMax: number | null;
  latency: Float64Array;
  ttft: Float64Array;
}

/** The fields of a record the rollups read. */
export type RollupInput = Pick<
  LogRecord,
  | "workspaceId"
  | "createdAt"
  | "success"
  | "latencyMs"
  | "timeToFirstTokenMs"
  | "user"
  | "model"
  | "provider"
  | "virtualKeyId"
  | "status"
  | "costUsd"
  | "cacheStatus"
  | "costSavedUsd"
  | "promptTokens"
  | "completionTokens"
  | "totalTokens"
> & {
  /** Read only for the declared keys of the record's workspace. */
  metadata?: Readonly<Record<string, string>>;
};

/** `YYYY-MM-DDTHH` of an instant: the stored form's prefix when it is already normal ISO (the common case). */
function hourPrefix(iso: string): string {
  return iso.length === 24 && iso.endsWith("Z") ? iso.slice(0, 13) : new Date(Date.parse(iso)).toISOString().slice(0, 13);
}

/**
 * Sums records into rollup rows, one per key, as they come: the writer folds a batch, the
 * background build (`log-rollup-build.ts`) an hour of stored rows page by page.
 */
export class RollupAccumulator {
  readonly #rows = new Map<string, RollupSums>();
  readonly #declared: DeclaredKeys;
  readonly #everyDimensionHourly: boolean;

  /**
   * `declared`: the metadata keys summed as dimensions, per workspace. `everyDimensionHourly`:
   * end users per hour too (PostgreSQL, see `ROLLUP_PERIOD`).
   */
  constructor(declared: DeclaredKeys = new Map(), options: { everyDimensionHourly?: boolean } = {}) {
    this.#declared = declared;
    this.#everyDimensionHourly = options.everyDimensionHourly ?? false;
  }

  /** `withDayRows`: also sum the record into the `day:<dim>` rows of its day. */
  add(record: RollupInput, withDayRows = false): void {
    const prefix = hourPrefix(record.createdAt);
    const hour = `${prefix}:00:00.000Z`;
    const day = `${prefix.slice(0, 10)}T00:00:00.000Z`;
    const success = record.success ? 1 : 0;
    const latencyBucket = bucketOf(record.latencyMs);
    const ttft = record.timeToFirstTokenMs;
    const ttftBucket = ttft === null ? -1 : bucketOf(ttft);
    for (const dim of ROLLUP_DIMENSIONS) {
      const value = encodeRollupValue(dimensionValue(record, dim));
      const hourly = this.#everyDimensionHourly || ROLLUP_PERIOD[dim] === "hour";
      this.#addTo(record, hourly ? hour : day, dim, value, success, latencyBucket, ttftBucket);
      if (hourly && withDayRows) this.#addTo(record, day, dayLevelOf(dim), value, success, latencyBucket, ttftBucket);
    }
    for (const key of this.#declared.get(record.workspaceId) ?? []) {
      const dim = metadataDimensionOf(key);
      const value = encodeRollupValue(record.metadata?.[key] ?? null);
      this.#addTo(record, hour, dim, value, success, latencyBucket, ttftBucket);
      if (withDayRows) this.#addTo(record, day, dayLevelOf(dim), value, success, latencyBucket, ttftBucket);
    }
  }

  #addTo(
    record: RollupInput,
    start: string,
    dim: AnyRollupDimension | DayLevelDimension,
    value: string,
    success: number,
    latencyBucket: number,
    ttftBucket: number,
  ): void {
    const ttft = record.timeToFirstTokenMs;
    const id = `${record.workspaceId}\u0000${start}\u0000${dim}\u0000${value}\u0000${success}`;
    let row = this.#rows.get(id);
    if (!row) {
      row = {
        key: { workspace_id: record.workspaceId, hour: start, dim, value, success },
        requests: 0,
        costUsd: 0,
        cacheHits: 0,
        semanticCacheHits: 0,
        costSavedUsd: 0,
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        latencyMin: Infinity,
        latencyMax: -Infinity,
        ttftMin: null,
        ttftMax: null,
        latency: new Float64Array(HISTOGRAM_BUCKETS),
        ttft: new Float64Array(HISTOGRAM_BUCKETS),
      };
      this.#rows.set(id, row);
    }
    row.requests += 1;
    row.costUsd += record.costUsd ?? 0;
    if (record.cacheStatus === "HIT") row.cacheHits += 1;
    else if (record.cacheStatus === "SEMANTIC_HIT") row.semanticCacheHits += 1;
    row.costSavedUsd += record.costSavedUsd ?? 0;
    row.promptTokens += record.promptTokens;
    row.completionTokens += record.completionTokens;
    row.totalTokens += record.totalTokens;
    if (record.latencyMs < row.latencyMin) row.latencyMin = record.latencyMs;
    if (record.latencyMs > row.latencyMax) row.latencyMax = record.latencyMs;
    row.latency[latencyBucket]! += 1;
    if (ttft !== null) {
      row.ttft[ttftBucket]! += 1;
      row.ttftMin = row.ttftMin === null ? ttft : Math.min(row.ttftMin, ttft);
      row.ttftMax = row.ttftMax === null ? ttft : Math.max(row.ttftMax, ttft);
    }
  }

  get size(): number {
    return this.#rows.size;
  }

  /** The summed rows, ready to be added to the stored ones (`+` for sums, min/max for the extremes). */
  rows(): LogRollupsTable[] {
    return Array.from(this.#rows.values(), toTableRow);
  }
}

/**
 * A rollup row as an object literal with every column named in the source: built column by
 * column, a 145-key object falls back to a slow dictionary layout (a delta took ~35 µs to build).
 */
const toTableRow = new Function(
  "s",
  `return { workspace_id: s.key.workspace_id, hour: s.key.hour, dim: s.key.dim, value: s.key.value, success: s.key.success,
    requests: s.requests, cost_usd: s.costUsd, cache_hits: s.cacheHits, semantic_cache_hits: s.semanticCacheHits,
    cost_saved_usd: s.costSavedUsd, prompt_tokens: s.promptTokens, completion_tokens: s.completionTokens,
    total_tokens: s.totalTokens, latency_min: s.latencyMin, latency_max: s.latencyMax, ttft_min: s.ttftMin, ttft_max: s.ttftMax,
    ${LATENCY_COLUMNS.map((column, i) => `${column}: s.latency[${i}]`).join(", ")},
    ${TTFT_COLUMNS.map((column, i) => `${column}: s.ttft[${i}]`).join(", ")} };`,
) as (sums: RollupSums) => LogRollupsTable;

/**
 * The rollup deltas of a batch of records, already summed per key, ready to be added to the
 * stored rows (`+` for sums, min/max for the extremes). Six keys per record, and one per declared metadata key.
 */
export function toRollupRows(records: readonly RollupInput[], declared?: DeclaredKeys): LogRollupsTable[] {
  const accumulator = new RollupAccumulator(declared);
  for (const record of records) accumulator.add(record);
  return accumulator.rows();
}
