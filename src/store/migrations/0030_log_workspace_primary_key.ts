import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: the primary key of `logs` becomes `(workspace_id, id)`, in place of `(id)` and
 * of the index `logs_workspace_id_idx (workspace_id, id)`; a BRIN index of `id` serves what reads
 * a time range across workspaces (the rollup build's hours, retention). Frozen: add `0031_…` for changes.
 *
 * Every read of the logs page is one workspace's, newest first. With a B-tree on `id` alone the
 * planner walked it backwards, filtering by workspace, whenever the workspace held a large share
 * of the rows: after the rest of the store wrote 771,000 logs, the unfiltered page of a workspace
 * holding half of 20,000,000 took 1.3 s instead of 40 ms, and a range's raw edges likewise read
 * every workspace's rows. With no B-tree on `id` alone, the workspace's own index is the only way.
 * A retried record still conflicts (its workspace and id are the same), and the writer keeps one
 * B-tree fewer.
 *
 * The new key is built on every partition while the migration holds the table (about N s per
 * million logs; the log writer's batches wait meanwhile, and reach the spool if it takes long).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`ALTER TABLE logs DROP CONSTRAINT logs_pkey`.execute(db);
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (workspace_id, id)`.execute(db);
  await sql`DROP INDEX logs_workspace_id_idx`.execute(db);
  await sql`CREATE INDEX logs_id_brin ON logs USING brin (id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`DROP INDEX logs_id_brin`.execute(db);
  await sql`CREATE INDEX logs_workspace_id_idx ON logs (workspace_id, id)`.execute(db);
  await sql`ALTER TABLE logs DROP CONSTRAINT logs_pkey`.execute(db);
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (id)`.execute(db);
}
