import type { Dialect, Kysely, KyselyPlugin } from "kysely";
import type { LogRollupsTable } from "../log-rollup-rows.ts";
import type { Database, LogMetadataTable, LogsTable } from "../schema.ts";

/** The SQL engines the store runs on. */
export type StoreDialectName = "sqlite" | "postgres";

/** What `openStore` needs from a dialect module; every dialect difference lives behind it. */
export interface StoreDialect {
  name: StoreDialectName;
  dialect: Dialect;
  /** Plugins every query of this engine runs through (PostgreSQL: no U+0000 in text). */
  plugins?: KyselyPlugin[];
  /**
   * The schema Kysely's migration tables belong in, or undefined for the database default.
   * PostgreSQL must name it: Kysely checks whether its tables exist across every schema,
   * so another schema's `kysely_migration` would otherwise count as ours.
   */
  migrationSchema(db: Kysely<Database>): Promise<string | undefined>;
  /**
   * Refreshes the statistics the query planner chooses indexes by, when the engine does not
   * keep them itself. Without them SQLite answers a filtered log listing by walking the whole
   * workspace in id order rather than through the filter's index.
   */
  refreshPlannerStatistics?(db: Kysely<Database>): Promise<void>;
  /**
   * Refreshes the statistics of the store's tables after a change of many rows at once (a
   * migration that rebuilds or fills a table), for an engine that keeps them itself but only
   * later: until its next automatic pass the planner would choose by a table's old shape.
   */
  analyseAfterBulkChange?(db: Kysely<Database>): Promise<void>;
  /**
   * Stores log rows and their metadata rows in one transaction, skipping ids already stored,
   * and adds the rollup deltas of the records it did store (`rollupsOf` their ids: a retried
   * batch whose first try was stored must not count twice),
   * through statements prepared once: for an engine where that beats Kysely's multi-row insert,
   * which the logs repository uses otherwise. Runs synchronously; the caller must hold the
   * dialect's connection (Kysely's `db.connection()`) so no other query interleaves.
   */
  insertLogRows?: LogRowsInsert;
  /**
   * Writes each table's rows of a batch in one statement, inside the caller's transaction (the
   * metadata pairs in the log rows, `log-metadata-pairs.ts`):
   * for an engine where that beats Kysely's multi-row inserts of a few hundred rows each.
   */
  bulkRows?: BulkRowsWriter;
  /**
   * Copies rows into a table inside the caller's transaction (`db` is the transaction), far
   * cheaper than an INSERT of the same rows; with no conflict handling, so a row whose key is
   * already stored fails the statement (and the transaction, unless under a savepoint).
   */
  copyRows?(db: Kysely<Database>, table: "logs", rows: readonly LogsTable[]): Promise<void>;
  /**
   * True where closed hours are summed into the rollups in the background (`log-rollup-build.ts`):
   * the writer then adds to the rollups only the records of hours already built.
   */
  rollupsBuiltInBackground?: boolean;
}

/** One statement per table per batch (`insertLogRows` aside, the logs repository's fastest path). */
export interface BulkRowsWriter {
  /** Inserts the rows, skipping ids already stored; resolves to the ids it stored. */
  logs(db: Kysely<Database>, rows: readonly LogsTable[]): Promise<string[]>;
  /** Adds the deltas (one row per key, at most) to the stored rollups. */
  rollups(db: Kysely<Database>, rows: readonly LogRollupsTable[]): Promise<void>;
}

export type LogRowsInsert = (
  logs: readonly LogsTable[],
  metadata: readonly LogMetadataTable[],
  rollupsOf: (storedIds: ReadonlySet<string>) => readonly LogRollupsTable[],
) => void;

/** True for the URLs the PostgreSQL dialect opens. */
export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

/** True for the URLs of the embedded SQLite store: `:memory:` and `file:` URLs. */
export function isEmbeddedUrl(url: string): boolean {
  return url === ":memory:" || url.startsWith("file:");
}
