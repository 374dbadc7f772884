import { bucketOf } from "../analytics/latency-histogram.ts";
import { LOG_FIELDS, type LogFieldName } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";
import { PLAIN_FIELDS } from "./clickhouse-columns.ts";
import { TSV_NULL, tsvString, tsvStringArray } from "./clickhouse-tsv.ts";

type Mapping = readonly [name: LogFieldName, column: string, kind: (typeof LOG_FIELDS)[LogFieldName]["kind"]];
/** Looked up once: a batch maps every field of thousands of records. */
const MAPPINGS: readonly Mapping[] = PLAIN_FIELDS.map((name) => [name, LOG_FIELDS[name].column, LOG_FIELDS[name].kind]);

/**
 * The `logs` row of a record as one TabSeparated line, in the order of `INSERTED_COLUMNS`: what a
 * batch insert sends (no object per row, no JSON, and the server reads fields by position).
 */
export function toTabSeparatedRow(record: LogRecord): string {
  let line = "";
  for (const [name, , kind] of MAPPINGS) {
    const value = record[name];
    if (kind === "boolean") line += value ? "1\t" : "0\t";
    else if (kind === "json") line += `${tsvString(JSON.stringify(value))}\t`;
    else if (value === null || value === undefined) line += `${TSV_NULL}\t`;
    else line += `${kind === "text" ? tsvString(value as string) : String(value)}\t`;
  }
  const keys: string[] = [];
  const values: string[] = [];
  for (const key in record.metadata) {
    keys.push(key);
    values.push(record.metadata[key]!);
  }
  const ttft = record.timeToFirstTokenMs === null ? TSV_NULL : String(bucketOf(record.timeToFirstTokenMs));
  return `${line}${Date.parse(record.createdAt)}\t${tsvStringArray(keys)}\t${tsvStringArray(values)}\t${bucketOf(record.latencyMs)}\t${ttft}\n`;
}

/**
 * The record of a row as ClickHouse returns it in JSON (64-bit integers as strings); columns not
 * selected (the bodies, in a listing) come back as null, as the main store's do.
 */
export function fromClickHouseRow(row: Record<string, unknown>): LogRecord {
  const record: Record<string, unknown> = {};
  for (const name of PLAIN_FIELDS) record[name] = fieldValue(name, row[LOG_FIELDS[name].column]);
  record.createdAt = new Date(Number(row.created_ms)).toISOString();
  const keys = (row["meta.key"] ?? []) as string[];
  const values = (row["meta.value"] ?? []) as string[];
  record.metadata = Object.fromEntries(keys.map((key, i) => [key, values[i] ?? ""]));
  return record as unknown as LogRecord;
}

function fieldValue(name: LogFieldName, value: unknown): unknown {
  const field = LOG_FIELDS[name];
  if (field.kind === "boolean") return Number(value) === 1;
  if (field.kind === "json") return "parse" in field ? field.parse(typeof value === "string" ? value : "") : value;
  if (value === null || value === undefined) return null;
  return field.kind === "text" ? value : Number(value);
}
