import { sql, type Kysely } from "kysely";

/**
 * Which stored config served a logged request (`config_id`, `config_version`), and the
 * `feedback` table: scores that callers attach to a trace. Frozen: add `0009_…` for changes.
 *
 * The config index is partial, like the virtual key's (0003): requests without a stored config
 * skip it, so only they pay nothing for it. The range filters (tokens, cost, latency, time to
 * first token) get no index: each would be one more B-tree write per logged request, and the
 * listing walks the workspace's index newest first anyway.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite adds one column per `ALTER TABLE`.
  await db.schema.alterTable("logs").addColumn("config_id", "text").execute();
  await db.schema.alterTable("logs").addColumn("config_version", "integer").execute();
  await db.schema
    .createIndex("logs_workspace_config_idx")
    .on("logs")
    .columns(["workspace_id", "config_id"])
    .where(sql.ref("config_id"), "is not", null)
    .execute();

  await db.schema
    .createTable("feedback")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("owner_id", "text")
    .addColumn("updated_by", "text")
    .addColumn("trace_id", "text", (col) => col.notNull())
    .addColumn("value", "integer", (col) => col.notNull())
    .addColumn("weight", "double precision", (col) => col.notNull())
    .addColumn("metadata", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("feedback_workspace_trace_idx").on("feedback").columns(["workspace_id", "trace_id", "id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("feedback").execute();
  await db.schema.dropIndex("logs_workspace_config_idx").execute();
  await db.schema.alterTable("logs").dropColumn("config_version").execute();
  await db.schema.alterTable("logs").dropColumn("config_id").execute();
}
