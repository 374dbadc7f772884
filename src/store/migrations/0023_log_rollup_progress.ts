import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: `log_rollup_progress`, one row, `built_until`: the UTC hour (ISO, `…T14:00:00.000Z`)
 * before which `log_rollups` holds every stored log. Frozen: add `0024_…` for changes.
 *
 * On PostgreSQL the log writer stores only the rows; a background step sums each closed hour
 * into the rollups and moves `built_until` on (`store/log-rollup-build.ts`). A record that lands
 * in an hour already built is added to the rollups by the writer itself, as before. Reads take
 * whole hours before `built_until` from the rollups and everything after it from the raw rows.
 *
 * A store with logs (or with logs still to move into partitions, 0022) starts at the next hour: the current hour's rollups were being kept by the
 * writer, so it goes on keeping them. An empty store starts at the current hour.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema
    .createTable("log_rollup_progress")
    .addColumn("id", "integer", (col) => col.primaryKey().check(sql`id = 1`))
    .addColumn("built_until", "text", (col) => col.notNull())
    .execute();
  await sql`
    INSERT INTO log_rollup_progress (id, built_until)
    SELECT 1, to_char(date_trunc('hour', now() AT TIME ZONE 'UTC') + CASE WHEN EXISTS (SELECT 1 FROM logs) OR to_regclass('logs_unpartitioned') IS NOT NULL THEN interval '1 hour' ELSE interval '0' END,
      'YYYY-MM-DD"T"HH24:00:00.000"Z"')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.dropTable("log_rollup_progress").execute();
}
