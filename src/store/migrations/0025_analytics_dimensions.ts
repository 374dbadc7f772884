import type { Kysely } from "kysely";

/**
 * `analytics_dimensions`: the metadata keys a workspace declared as analytics dimensions (at
 * most five a workspace, `PUT /v1/analytics/dimensions`). Frozen: add `0026_…` for changes.
 *
 * A declared key is summed into `log_rollups` as the dimension `meta:<key>` (hour rows, and on
 * PostgreSQL `day:meta:<key>` day rows) from `rollups_from` on: the first hour whose records
 * are all summed (ISO, `…T14:00:00.000Z`). Analytics read the raw rows before it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("analytics_dimensions")
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("key", "text", (col) => col.notNull())
    .addColumn("declared_at", "text", (col) => col.notNull())
    .addColumn("rollups_from", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("analytics_dimensions_pk", ["workspace_id", "key"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("analytics_dimensions").execute();
}
