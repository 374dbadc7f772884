import type { Kysely } from "kysely";

/**
 * `audit_events`: one row per control-plane write (who, what, when, the masked views before and
 * after). Listed per workspace newest first: the id is a UUIDv7, so `(workspace_id, id)` is the
 * workspace's events in time order and the id is also the page cursor. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_events")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("actor_key_id", "text", (col) => col.notNull())
    .addColumn("action", "text", (col) => col.notNull())
    .addColumn("resource_type", "text", (col) => col.notNull())
    .addColumn("resource_id", "text", (col) => col.notNull())
    .addColumn("resource_slug", "text")
    .addColumn("before", "text")
    .addColumn("after", "text")
    .addColumn("request_id", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("audit_events_workspace_time").on("audit_events").columns(["workspace_id", "id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("audit_events").execute();
}
