import Database from "libsql";
import type { LogRecord } from "../../logging/log-record.ts";
import { LOG_SUMMARY_COLUMNS, toLogRow, toMetadataRows } from "../log-rows.ts";
import type { LogsTable } from "../schema.ts";
import { BUSY_TIMEOUT_MS, filePath } from "./libsql.ts";

const LOG_COLUMNS = [...LOG_SUMMARY_COLUMNS, "request_body", "response_body"] as const satisfies ReadonlyArray<keyof LogsTable>;

export interface LogInserter {
  insertBatch(records: LogRecord[]): void;
  close(): void;
}

/**
 * The log writer's fast path on an embedded libSQL file: two statements prepared once and run
 * per row in one transaction. Building a multi-row insert per batch through the query builder
 * cost more than SQLite's own work; the rows, conflict rules and metadata are those of
 * `logs-repository.ts` (`toLogRow`, `toMetadataRows`), so both paths store the same thing.
 */
export function openLibsqlLogInserter(url: string): LogInserter {
  const db = new Database(filePath(url));
  db.exec(`PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`);
  db.exec("PRAGMA synchronous=NORMAL");
  const insertLog = db.prepare(
    `INSERT INTO logs (${LOG_COLUMNS.join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")}) ON CONFLICT (id) DO NOTHING`,
  );
  const insertMetadata = db.prepare(
    "INSERT INTO log_metadata (log_id, workspace_id, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (log_id, key) DO NOTHING",
  );
  const insertAll = db.transaction((records: LogRecord[]) => {
    for (const record of records) {
      const row = toLogRow(record);
      insertLog.run(LOG_COLUMNS.map((column) => row[column]));
      for (const pair of toMetadataRows(record)) insertMetadata.run(pair.log_id, pair.workspace_id, pair.key, pair.value);
    }
  });
  return {
    insertBatch: (records) => {
      if (records.length > 0) insertAll(records);
    },
    close: () => db.close(),
  };
}
