/// <reference types="bun" />
/**
 * Bun only: the embedded store's engine under Bun, Bun's built-in SQLite.
 *
 * Why not libSQL here: the log worker writes the same file through Bun's SQLite, and SQLite
 * coordinates the connections of one process through state inside its library (POSIX locks
 * belong to the process, so they never exclude one another within it). Two engines in one
 * process each keep their own, so neither sees the other's locks and the file is corrupted
 * under load. One engine per process, on every thread, is what SQLite supports.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { isMainThread } from "node:worker_threads";
import { Database, type SQLQueryBindings } from "bun:sqlite";
import { sql, SqliteDialect, type Driver, type SqliteDatabase, type SqliteStatement } from "kysely";
import { ROLLUP_COLUMNS } from "../log-rollup-rows.ts";
import { ROLLUP_UPSERT_SQL } from "../log-rollup-sql.ts";
import { LOG_COLUMNS } from "../log-rows.ts";
import { BusyRetrySqliteDriver } from "./busy-retry-sqlite-driver.ts";
import { filePath, sqliteSetupStatements } from "./sqlite-file.ts";
import type { LogRowsInsert, StoreDialect } from "./store-dialect.ts";

/** The embedded store for `file:` URLs and `:memory:` under Bun; set up as under libSQL. */
export async function createBunSqliteDialect(url: string): Promise<StoreDialect> {
  const path = url === ":memory:" ? ":memory:" : filePath(url);
  if (path !== ":memory:") await mkdir(dirname(path), { recursive: true });
  const database = new Database(path, { create: true });
  for (const statement of sqliteSetupStatements(url)) database.run(statement);
  // On the request thread a connection never waits on another connection's lock inside SQLite
  // (which would stall every request): the driver waits asynchronously instead. The log
  // worker's connection, on a thread of its own, keeps the busy timeout.
  if (isMainThread) database.run("PRAGMA busy_timeout=0");
  const kyselyDatabase = asKyselyDatabase(database);
  return {
    name: "sqlite",
    dialect: new BusyRetrySqliteDialect(kyselyDatabase),
    migrationSchema: () => Promise.resolve(undefined),
    refreshPlannerStatistics: async (db) => {
      await sql`ANALYZE`.execute(db);
    },
    insertLogRows: preparedLogInsert(database),
  };
}

/**
 * Log rows through two statements prepared on first use and kept: a batch binds each row's
 * values directly, where Kysely would compile one large multi-row statement per batch.
 */
function preparedLogInsert(database: Database): LogRowsInsert {
  let insertAll: ((...args: Parameters<LogRowsInsert>) => void) | null = null;
  const prepare = () => {
    const insertLog = database.prepare<unknown, SQLQueryBindings[]>(
      `INSERT INTO logs (${LOG_COLUMNS.join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")}) ON CONFLICT (id) DO NOTHING`,
    );
    const insertMetadata = database.prepare<unknown, [string, string, string, string]>(
      "INSERT INTO log_metadata (log_id, workspace_id, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (log_id, key) DO NOTHING",
    );
    const upsertRollup = database.prepare<unknown, SQLQueryBindings[]>(ROLLUP_UPSERT_SQL);
    return database.transaction((...[logs, metadata, rollupsOf]: Parameters<LogRowsInsert>) => {
      const stored = new Set<string>();
      for (const row of logs) {
        if (insertLog.run(...LOG_COLUMNS.map((column) => row[column] as SQLQueryBindings)).changes > 0) stored.add(row.id);
      }
      for (const pair of metadata) insertMetadata.run(pair.log_id, pair.workspace_id, pair.key, pair.value);
      for (const row of rollupsOf(stored)) upsertRollup.run(...ROLLUP_COLUMNS.map((column) => row[column] as SQLQueryBindings));
    }).immediate;
  };
  return (logs, metadata, rollupsOf) => {
    insertAll ??= prepare();
    insertAll(logs, metadata, rollupsOf);
  };
}

/**
 * Bun's `Database` in the shape Kysely's SQLite driver expects. Statements are prepared per
 * query and finalized at once: control-plane queries are few (their results are cached), and
 * Bun's own statement cache would keep one entry per distinct SQL text for the process's life.
 */
function asKyselyDatabase(database: Database): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare(text: string): SqliteStatement {
      const statement = database.prepare(text);
      const bindings = (parameters: ReadonlyArray<unknown>) => parameters as SQLQueryBindings[];
      const once = <T>(work: () => T): T => {
        try {
          return work();
        } finally {
          statement.finalize();
        }
      };
      return {
        reader: statement.columnNames.length > 0,
        all: (parameters) => once(() => statement.all(...bindings(parameters))),
        run: (parameters) => once(() => statement.run(...bindings(parameters))),
        iterate: function* (parameters) {
          try {
            yield* statement.iterate(...bindings(parameters));
          } finally {
            statement.finalize();
          }
        },
      };
    },
  };
}

/** Kysely's SQLite dialect with the driver that waits for locks asynchronously (`busy-retry-sqlite-driver.ts`). */
class BusyRetrySqliteDialect extends SqliteDialect {
  constructor(private readonly database: SqliteDatabase) {
    super({ database });
  }

  override createDriver(): Driver {
    return new BusyRetrySqliteDriver(this.database);
  }
}
