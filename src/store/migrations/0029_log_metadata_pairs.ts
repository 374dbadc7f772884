import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: a log's metadata pairs kept in its own row, `logs.metadata_pairs text[]`,
 * with a GIN index (`store/log-metadata-pairs.ts`). Frozen: add `0030_…` for changes.
 *
 * The writer stops adding rows to `log_metadata`: its unique B-tree cost the server about as
 * much as four of `logs`' indexes per row, the array and its GIN index a third of that. Rows
 * stored before keep a null `metadata_pairs` and their `log_metadata` rows, which filters and
 * groups still read for them; retention drops both with their days, so nothing is rewritten.
 *
 * Adding a nullable column without a default changes no row. The index is built on every
 * partition while the migration holds the table; the stored rows have no pairs, so it reads them
 * without indexing any.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`ALTER TABLE logs ADD COLUMN metadata_pairs text[]`.execute(db);
  await sql`CREATE INDEX logs_metadata_pairs_idx ON logs USING gin (metadata_pairs)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  throw new Error("0029_log_metadata_pairs cannot be undone: logs stored since have their metadata pairs only in their rows");
}
