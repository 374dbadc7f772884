import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: one B-tree on `log_metadata` instead of two, for the log writer. Frozen: add
 * `0028_…` for changes.
 *
 * - `log_metadata` keeps one B-tree, `log_metadata_filter_idx (workspace_id, key, value, log_id)`,
 *   unique, in place of its primary key `(log_id, key)` and `log_metadata_lookup_idx
 *   (workspace_id, key, value)`: a metadata filter both probes it for one log and walks it
 *   newest log first, and a retried batch's pairs are still skipped by `ON CONFLICT DO NOTHING`.
 * - `log_metadata_log_id_brin`, a BRIN index of `log_id` (ids arrive in time order: a few pages
 *   of summaries a day), so deleting the pairs of given logs does not scan a day's partition.
 *
 * `logs` keeps its indexes: `(workspace_id, created_at)` too, which reads a range's raw edges
 * (the partial days of groups by end user) for one workspace; without it they went through the
 * primary key, every workspace's rows of the range and an hour of margin.
 *
 * Each index is created on the partitioned table, so on every partition; an existing store's
 * partitions are indexed while the migration holds the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`CREATE UNIQUE INDEX log_metadata_filter_idx ON log_metadata (workspace_id, key, value, log_id)`.execute(db);
  await sql`CREATE INDEX log_metadata_log_id_brin ON log_metadata USING brin (log_id)`.execute(db);
  await sql`DROP INDEX log_metadata_lookup_idx`.execute(db);
  await sql`ALTER TABLE log_metadata DROP CONSTRAINT log_metadata_pk`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`ALTER TABLE log_metadata ADD CONSTRAINT log_metadata_pk PRIMARY KEY (log_id, key)`.execute(db);
  await sql`CREATE INDEX log_metadata_lookup_idx ON log_metadata (workspace_id, key, value)`.execute(db);
  await sql`DROP INDEX log_metadata_log_id_brin`.execute(db);
  await sql`DROP INDEX log_metadata_filter_idx`.execute(db);
}
