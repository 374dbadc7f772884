import type { Selectable } from "kysely";
import { LOG_FIELD_NAMES, LOG_FIELDS, type LogBodyColumn, type LogFieldName } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";
import { metadataPairsLiteral } from "./log-metadata-pairs.ts";
import type { LogMetadataTable, LogsTable } from "./schema.ts";

export { LOG_COLUMNS, LOG_LISTED_COLUMNS } from "../records/log-fields.ts";

/** A `logs` row as listing reads it; the bodies are present only when selected. */
export type LogRow = Omit<Selectable<LogsTable>, LogBodyColumn> & Partial<Pick<Selectable<LogsTable>, LogBodyColumn>>;

type Mapping = readonly [name: LogFieldName, column: string, kind: (typeof LOG_FIELDS)[LogFieldName]["kind"]];
const MAPPINGS: readonly Mapping[] = LOG_FIELD_NAMES.map((name) => [name, LOG_FIELDS[name].column, LOG_FIELDS[name].kind]);

/**
 * The `logs` row of a record, as one object literal compiled from `LOG_FIELDS`: a row of ~50
 * columns built key by key falls back to a slow dictionary layout, which then slows every reader
 * of the row too (the COPY text of a batch). Names are embedded as JSON string literals.
 */
export const toLogRow = compileLogRow([]) as (record: LogRecord) => LogsTable;

/** A PostgreSQL `logs` row: the record's metadata pairs in the row too (`log-metadata-pairs.ts`). */
export type PostgresLogRow = LogsTable & { metadata_pairs: string };

/** The PostgreSQL `logs` row of a record, compiled the same way. */
export const toPostgresLogRow = compileLogRow([`"metadata_pairs": pairs(record.metadata)`]) as (record: LogRecord) => PostgresLogRow;

function compileLogRow(extra: readonly string[]): (record: LogRecord) => LogsTable {
  const fields = MAPPINGS.map(([name, column, kind]) => {
    const value = `record[${JSON.stringify(name)}]`;
    return `${JSON.stringify(column)}: ${kind === "boolean" ? `(${value} ? 1 : 0)` : kind === "json" ? `stringify(${value})` : value}`;
  });
  return new Function("stringify", "pairs", `return (record) => ({ ${[...fields, ...extra].join(", ")} });`)(JSON.stringify, metadataPairsLiteral) as (
    record: LogRecord,
  ) => LogsTable;
}

/** The record of a row; bodies not selected come back as null. */
export function fromLogRow(row: LogRow): LogRecord {
  const columns = row as Record<string, unknown>;
  const record: Record<string, unknown> = {};
  for (const [name, column, kind] of MAPPINGS) {
    const value = columns[column];
    if (kind === "boolean") record[name] = value === 1;
    else if (kind === "json") record[name] = parseJsonColumn(name, value);
    else record[name] = value ?? null;
  }
  return record as unknown as LogRecord;
}

function parseJsonColumn(name: LogFieldName, value: unknown): unknown {
  const field = LOG_FIELDS[name];
  return "parse" in field ? field.parse(typeof value === "string" ? value : "") : value;
}

/** The `log_metadata` rows of a record, one per metadata pair (the embedded store's form). */
export function toMetadataRows(record: LogRecord): LogMetadataTable[] {
  return Object.entries(record.metadata).map(([key, value]) => ({
    log_id: record.id,
    workspace_id: record.workspaceId,
    key,
    value,
  }));
}
