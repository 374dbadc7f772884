import { sql } from "kysely";
import { ROLLUP_CONFLICT_CLAUSE } from "../log-rollup-sql.ts";
import { LATENCY_COLUMNS, ROLLUP_COLUMNS, TTFT_COLUMNS, type LogRollupsTable } from "../log-rollup-rows.ts";
import type { LogsTable } from "../schema.ts";
import type { BulkRowsWriter } from "./store-dialect.ts";

/**
 * PostgreSQL writes a batch's rows as one JSON array bound to one parameter and expanded by
 * `json_populate_recordset` into the table's own row type: one statement per table per batch,
 * whatever its size, where a multi-row INSERT binds (and the server parses) one placeholder
 * per value, about 40 per log row and 145 per rollup row. The columns are matched by name.
 * Numbers are finite (JSON has no Infinity): a rollup delta counts at least one record.
 */
export const postgresJsonRows: BulkRowsWriter = {
  async logs(db, rows) {
    const { rows: stored } = await sql<{ id: string }>`
      INSERT INTO logs SELECT * FROM json_populate_recordset(NULL::logs, ${asJson(rows)}::json)
      ON CONFLICT (workspace_id, id) DO NOTHING RETURNING id`.execute(db);
    return stored.map((row) => row.id);
  },
  async rollups(db, rows) {
    if (rows.length === 0) return;
    await sql`
      INSERT INTO log_rollups SELECT * FROM json_populate_recordset(json_populate_record(NULL::log_rollups, ${ZERO_HISTOGRAMS}::json), ${rollupsJson(rows)}::json)
      ${sql.raw(ROLLUP_CONFLICT_CLAUSE)}`.execute(db);
  },
};

const NUL = /\u0000/g;
const withoutNul = (text: string): string => (text.includes("\u0000") ? text.replace(NUL, "\uFFFD") : text);

const HISTOGRAM_COLUMNS: readonly string[] = [...LATENCY_COLUMNS, ...TTFT_COLUMNS];
const HISTOGRAM_SET = new Set(HISTOGRAM_COLUMNS);
const SCALAR_COLUMNS = ROLLUP_COLUMNS.filter((column) => !HISTOGRAM_SET.has(column));
/** The row each rollup delta starts from: every histogram count 0 (the rest is always given). */
const ZERO_HISTOGRAMS = JSON.stringify(Object.fromEntries(HISTOGRAM_COLUMNS.map((column) => [column, 0])));

/**
 * Rollup deltas as JSON with only their non-zero histogram counts: a delta of a few records has
 * a few of its 128 counts set, and PostgreSQL's cost of reading the JSON grows with its keys.
 * Written by hand: `JSON.stringify` with a replacer is several times slower.
 */
export function rollupsJson(rows: readonly LogRollupsTable[]): string {
  const parts: string[] = [];
  for (const row of rows) {
    const fields: string[] = [];
    for (const column of SCALAR_COLUMNS) {
      const value = row[column];
      fields.push(`"${column}":${typeof value === "string" ? JSON.stringify(withoutNul(value)) : value === null ? "null" : String(value)}`);
    }
    for (const column of HISTOGRAM_COLUMNS) {
      const count = row[column as keyof LogRollupsTable] as number;
      if (count !== 0) fields.push(`"${column}":${count}`);
    }
    parts.push(`{${fields.join(",")}}`);
  }
  return `[${parts.join(",")}]`;
}

/**
 * The rows as JSON text. PostgreSQL text cannot hold U+0000 (nor can `json` turn `\u0000` into
 * text), and inside the JSON no parameter filter sees it: strings that carry one get U+FFFD, as
 * every other string parameter of this dialect does (`postgres-text.ts`). `\u0000` in the
 * output may also be an escaped backslash before `u0000`; the second pass then changes nothing.
 */
export function asJson(rows: readonly LogsTable[]): string {
  const json = JSON.stringify(rows);
  if (!json.includes("\\u0000")) return json;
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === "string" ? withoutNul(value) : value));
}
