import { sql, type Kysely } from "kysely";

/**
 * `experiments`: variants of the requests a config joins to them, their weights, assignment,
 * guards and status (JSON text for variants, guards and the stop reason). `logs.experiment_id`
 * and `logs.experiment_variant`: the experiment and variant a request was assigned, indexed only
 * where set (most requests are in none), for the logs filter and the results' sums. On
 * PostgreSQL the columns and the index reach every day partition of `logs`. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("experiments")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("owner_id", "text")
    .addColumn("updated_by", "text")
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("description", "text")
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("assignment", "text", (col) => col.notNull())
    .addColumn("prompt_id", "text")
    .addColumn("variants", "text", (col) => col.notNull())
    .addColumn("guards", "text", (col) => col.notNull())
    .addColumn("alpha", "double precision", (col) => col.notNull())
    .addColumn("started_at", "text")
    .addColumn("stopped_at", "text")
    .addColumn("concluded_at", "text")
    .addColumn("stop_reason", "text")
    .addColumn("promoted_variant", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("experiments_workspace").on("experiments").columns(["workspace_id", "created_at"]).execute();
  await db.schema.createIndex("experiments_status").on("experiments").columns(["status"]).execute();
  // SQLite adds one column per ALTER TABLE.
  await db.schema.alterTable("logs").addColumn("experiment_id", "text").execute();
  await db.schema.alterTable("logs").addColumn("experiment_variant", "text").execute();
  await db.schema
    .createIndex("logs_workspace_experiment_idx")
    .on("logs")
    .columns(["workspace_id", "experiment_id", "experiment_variant"])
    .where(sql.ref("experiment_id"), "is not", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("logs_workspace_experiment_idx").execute();
  await db.schema.alterTable("logs").dropColumn("experiment_variant").execute();
  await db.schema.alterTable("logs").dropColumn("experiment_id").execute();
  await db.schema.dropTable("experiments").execute();
}
