import { LOG_FIELD_NAMES, LOG_FIELDS, type LogFieldName } from "../records/log-fields.ts";

/**
 * The `logs` columns of the ClickHouse store, derived from `LOG_FIELDS` (one column per field)
 * except where the workload wants another form:
 * - `createdAt` is `created_ms` (Int64 epoch milliseconds): partitions and time filters read a number;
 * - `metadata` is the Nested `meta` (`meta.key`, `meta.value`, parallel arrays), queryable by key
 *   on every ClickHouse release (18.16 has no Map);
 * - `latency_bucket` and `ttft_bucket` hold each record's histogram bucket, computed on insert, so
 *   analytics group by a small integer instead of comparing against 63 bounds.
 */

/** Fields that are strings of few distinct values: dictionary-encoded. */
const LOW_CARDINALITY = new Set<LogFieldName>(["organisationId", "provider", "model", "route", "method", "cacheStatus", "costNote", "spanName"]);

/** Fields stored in another form (see above). */
const RESHAPED_FIELDS = new Set<LogFieldName>(["createdAt", "metadata"]);

/** The plain fields: stored as one column each, under the main store's column name. */
export const PLAIN_FIELDS: readonly LogFieldName[] = LOG_FIELD_NAMES.filter((name) => !RESHAPED_FIELDS.has(name));

function typeOf(name: LogFieldName): string {
  const field = LOG_FIELDS[name];
  const base = field.kind === "integer" ? "Int64" : field.kind === "real" ? "Float64" : field.kind === "boolean" ? "UInt8" : "String";
  const nullable = "nullable" in field && field.nullable ? `Nullable(${base})` : base;
  return LOW_CARDINALITY.has(name) ? `LowCardinality(${nullable})` : nullable;
}

/** The column definitions of `logs`, in insert order. */
export function logsColumnDefinitions(): string[] {
  return [
    ...PLAIN_FIELDS.map((name) => `${LOG_FIELDS[name].column} ${typeOf(name)}`),
    "created_ms Int64",
    "meta Nested(key String, value String)",
    "latency_bucket UInt8",
    "ttft_bucket Nullable(UInt8)",
  ];
}

/** The columns a batch insert writes, in the order of `toTabSeparatedRow`'s fields. */
export const INSERTED_COLUMNS: readonly string[] = [
  ...PLAIN_FIELDS.map((name) => LOG_FIELDS[name].column),
  "created_ms",
  "meta.key",
  "meta.value",
  "latency_bucket",
  "ttft_bucket",
];

/** Columns listing reads: every one but the bodies. */
export const LISTED_COLUMNS: readonly string[] = [
  ...PLAIN_FIELDS.filter((name) => !("body" in LOG_FIELDS[name])).map((name) => LOG_FIELDS[name].column),
  "created_ms",
  "meta.key",
  "meta.value",
];

/** Every column a record is read back from. */
export const RECORD_COLUMNS: readonly string[] = [...PLAIN_FIELDS.map((name) => LOG_FIELDS[name].column), "created_ms", "meta.key", "meta.value"];
