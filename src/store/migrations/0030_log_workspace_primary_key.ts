import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: the primary key of `logs` becomes `(workspace_id, id)`, in place of `(id)` and
 * of the index `logs_workspace_id_idx (workspace_id, id)`; `logs_hour_idx` on the hour a log was
 * created (`left(created_at, 13)`, `2026-11-27T22`) and its id serves the rollup build, which
 * reads an hour of every workspace's logs in pages by id. Frozen: add `0031_…` for changes.
 *
 * Every read of the logs page is one workspace's, newest first. With a B-tree on `id` alone the
 * planner walked it backwards, filtering by workspace, whenever the workspace held a large share
 * of the rows: after the rest of the store wrote 771,000 logs, the unfiltered page of a workspace
 * holding half of 20,000,000 took 1.3 s instead of 40 ms, and a range's raw edges likewise read
 * every workspace's rows. With no B-tree on `id` alone, the workspace's own index is the only way.
 * A retried record still conflicts (its workspace and id are the same).
 *
 * Every other index of `logs` begins with `workspace_id`, for the same reason: an index of
 * `created_at` alone (or a BRIN index of `id`) was taken for a range's raw edge of one workspace
 * whenever the statistics gave that workspace a large share, and read every workspace's rows of
 * the edge (1.8 s for the last 35 minutes of a day partition into which other workspaces had just
 * written 1,700,000 logs). The build's index holds the hour as an expression, which no query of a
 * workspace's logs names, so the planner cannot offer it to them.
 *
 * Both are built on every partition while the migration holds the table (for 20,000,000 logs
 * about 2.5 minutes, `ANALYZE` included; the log writer's batches wait meanwhile, and reach the
 * spool if it takes long).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`ALTER TABLE logs DROP CONSTRAINT logs_pkey`.execute(db);
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (workspace_id, id)`.execute(db);
  await sql`DROP INDEX logs_workspace_id_idx`.execute(db);
  await sql`CREATE INDEX logs_hour_idx ON logs ((left(created_at, 13)), id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`DROP INDEX logs_hour_idx`.execute(db);
  await sql`CREATE INDEX logs_workspace_id_idx ON logs (workspace_id, id)`.execute(db);
  await sql`ALTER TABLE logs DROP CONSTRAINT logs_pkey`.execute(db);
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (id)`.execute(db);
}
