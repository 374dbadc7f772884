import { LOG_FIELDS, type LogFieldName } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";
import { PLAIN_FIELDS } from "./clickhouse-columns.ts";
import { toTabSeparatedRow } from "./clickhouse-row-writer.ts";

/** Bytes per chunk of an insert's text. */
const CHUNK_BYTES = 1 << 20;

/**
 * The records as the TabSeparated text of one insert, in chunks. Each line is copied into the
 * chunk as soon as it is written, so it dies young: text held across many rows is copied by
 * every young-generation collection until it is promoted.
 */
export function writeTabSeparated(records: readonly LogRecord[]): Buffer[] {
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (const record of records) {
    const line = toTabSeparatedRow(record);
    // A UTF-16 unit is at most three bytes of UTF-8.
    if (used + line.length * 3 > chunk.length) {
      if (used > 0) chunks.push(chunk.subarray(0, used));
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length * 3));
      used = 0;
    }
    used += chunk.write(line, used);
  }
  if (used > 0) chunks.push(chunk.subarray(0, used));
  return chunks;
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
