import { bucketOf } from "../analytics/latency-histogram.ts";
import { LOG_FIELDS } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";
import { PLAIN_FIELDS } from "./clickhouse-columns.ts";
import { TSV_NULL, tsvString, tsvStringArray } from "./clickhouse-tsv.ts";

/**
 * The `logs` row of a record as one TabSeparated line, in the order of `INSERTED_COLUMNS`.
 *
 * Compiled once from `LOG_FIELDS` into one function whose body reads each field by name and
 * concatenates the line in a single expression: no loop over a field table, no per-field kind
 * test, no intermediate string per field. A batch writes this for every record, and the gateway's
 * share of ingest is mostly this (docs/clickhouse.md, "Ingest").
 */
export type RowWriter = (record: LogRecord) => string;

/** The source of one field's text, an expression over the record `r`. */
function fieldSource(name: (typeof PLAIN_FIELDS)[number]): string {
  const field = LOG_FIELDS[name];
  const value = `r[${JSON.stringify(name)}]`;
  switch (field.kind) {
    case "boolean":
      return `(${value} ? "1" : "0")`;
    case "json":
      return `esc(JSON.stringify(${value}))`;
    case "text":
      return "nullable" in field ? `(${value} == null ? NULL : esc(${value}))` : `esc(${value})`;
    default:
      return "nullable" in field ? `(${value} == null ? NULL : "" + ${value})` : `("" + ${value})`;
  }
}

/** Metadata as the `meta.key` and `meta.value` arrays, in the record's key order. */
function metadataColumns(metadata: Record<string, string>): string {
  const keys: string[] = [];
  const values: string[] = [];
  for (const key in metadata) {
    keys.push(key);
    values.push(metadata[key]!);
  }
  return `${tsvStringArray(keys)}\t${tsvStringArray(values)}`;
}

function compileRowWriter(): RowWriter {
  const fields = PLAIN_FIELDS.map(fieldSource).join(' + "\\t" + ');
  const rest = [
    "Date.parse(r.createdAt)",
    "meta(r.metadata)",
    "bucket(r.latencyMs)",
    "(r.timeToFirstTokenMs === null ? NULL : bucket(r.timeToFirstTokenMs))",
  ].join(' + "\\t" + ');
  const body = `return function toTabSeparatedRow(r) { return ${fields} + "\\t" + ${rest} + "\\n"; };`;
  return new Function("esc", "meta", "bucket", "NULL", body)(tsvString, metadataColumns, bucketOf, TSV_NULL) as RowWriter;
}

export const toTabSeparatedRow: RowWriter = compileRowWriter();
