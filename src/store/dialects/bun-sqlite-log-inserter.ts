/// <reference types="bun" />
/**
 * Bun only: the log-store worker, which only the Bun entry point starts, loads this module.
 * It writes the store's file through Bun's built-in SQLite, the engine the store itself uses
 * under Bun (`bun-sqlite.ts`): SQLite keeps the connections of one process from corrupting
 * the file only when they share one engine.
 */
import { Database } from "bun:sqlite";
import type { LogRecord } from "../../logging/log-record.ts";
import { LOG_SUMMARY_COLUMNS, toLogRow, toMetadataRows } from "../log-rows.ts";
import type { LogsTable } from "../schema.ts";
import { BUSY_TIMEOUT_MS, filePath } from "./sqlite-file.ts";

const LOG_COLUMNS = [...LOG_SUMMARY_COLUMNS, "request_body", "response_body"] as const satisfies ReadonlyArray<keyof LogsTable>;

export interface LogInserter {
  insertBatch(records: LogRecord[]): void;
  close(): void;
}

/**
 * Two statements prepared once and run per row in one transaction. The rows, conflict rules
 * and metadata are those of `logs-repository.ts` (`toLogRow`, `toMetadataRows`), so both paths
 * store the same thing.
 */
export function openBunSqliteLogInserter(url: string): LogInserter {
  const db = new Database(filePath(url));
  db.exec(`PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`);
  db.exec("PRAGMA synchronous=NORMAL");
  const insertLog = db.prepare<unknown, LogsTable[keyof LogsTable][]>(
    `INSERT INTO logs (${LOG_COLUMNS.join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")}) ON CONFLICT (id) DO NOTHING`,
  );
  const insertMetadata = db.prepare<unknown, [string, string, string, string]>(
    "INSERT INTO log_metadata (log_id, workspace_id, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (log_id, key) DO NOTHING",
  );
  const insertAll = db.transaction((records: LogRecord[]) => {
    for (const record of records) {
      const row = toLogRow(record);
      insertLog.run(...LOG_COLUMNS.map((column) => row[column]));
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
