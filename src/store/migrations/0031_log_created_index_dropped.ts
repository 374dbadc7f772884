import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: `logs_workspace_created_idx (workspace_id, created_at)` is dropped. A range's
 * raw edges (partial hours and days, hours not built yet) of one workspace are read through the
 * primary key `(workspace_id, id)`: a log's id holds the millisecond of its `created_at`
 * (`ID_MARGIN_MS`), so the range's ids are a range of the key, with a minute more at each end.
 * The index cost the writer about a tenth of a copy's time and nothing reads it any more.
 * Frozen: add `0032_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`DROP INDEX IF EXISTS logs_workspace_created_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`CREATE INDEX logs_workspace_created_idx ON logs (workspace_id, created_at)`.execute(db);
}
