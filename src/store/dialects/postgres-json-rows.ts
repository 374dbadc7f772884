import { sql } from "kysely";
import { ROLLUP_CONFLICT_CLAUSE } from "../log-rollup-sql.ts";
import type { LogRollupsTable } from "../log-rollup-rows.ts";
import type { LogMetadataTable, LogsTable } from "../schema.ts";
import type { BulkRowsWriter } from "./store-dialect.ts";

/**
 * PostgreSQL writes a batch's rows as one JSON array bound to one parameter and expanded by
 * `json_populate_recordset` into the table's own row type: one statement per table per batch,
 * whatever its size, where a multi-row INSERT binds (and the server parses) one placeholder
 * per value, about 40 per log row and 145 per rollup row. The columns are matched by name.
 */
export const postgresJsonRows: BulkRowsWriter = {
  async logs(db, rows) {
    const { rows: stored } = await sql<{ id: string }>`
      INSERT INTO logs SELECT * FROM json_populate_recordset(NULL::logs, ${asJson(rows)}::json)
      ON CONFLICT (id) DO NOTHING RETURNING id`.execute(db);
    return stored.map((row) => row.id);
  },
  async metadata(db, rows) {
    if (rows.length === 0) return;
    await sql`
      INSERT INTO log_metadata SELECT * FROM json_populate_recordset(NULL::log_metadata, ${asJson(rows)}::json)
      ON CONFLICT (log_id, key) DO NOTHING`.execute(db);
  },
  async rollups(db, rows) {
    if (rows.length === 0) return;
    await sql`
      INSERT INTO log_rollups SELECT * FROM json_populate_recordset(NULL::log_rollups, ${asJson(rows)}::json)
      ${sql.raw(ROLLUP_CONFLICT_CLAUSE)}`.execute(db);
  },
};

const NUL = /\u0000/g;

/**
 * The rows as JSON text. PostgreSQL text cannot hold U+0000 (nor can `json` turn `\u0000` into
 * text), and inside the JSON no parameter filter sees it: strings that carry one get U+FFFD, as
 * every other string parameter of this dialect does (`postgres-text.ts`). `\u0000` in the
 * output may also be an escaped backslash before `u0000`; the second pass then changes nothing.
 */
export function asJson(rows: readonly LogsTable[] | readonly LogMetadataTable[] | readonly LogRollupsTable[]): string {
  const json = JSON.stringify(rows);
  if (!json.includes("\\u0000")) return json;
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === "string" ? value.replace(NUL, "\uFFFD") : value));
}
