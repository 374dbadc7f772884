import type { Kysely } from "kysely";

/**
 * `webhooks`: where a workspace's events go (a URL checked by the custom-host guard, a sealed
 * HMAC secret, the event types it takes); `webhook_deliveries`: one row per event and webhook,
 * unique by `(webhook_id, dedup_key)` so that an event (a budget's threshold in a period) is
 * queued once per webhook whatever replica finds it; pending rows are found by
 * `(status, next_attempt_at)`. Frozen: add `0042_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("owner_id", "text")
    .addColumn("updated_by", "text")
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("description", "text")
    .addColumn("secret", "text", (col) => col.notNull())
    .addColumn("events", "text", (col) => col.notNull())
    .addColumn("enabled", "integer", (col) => col.notNull().defaultTo(1))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("webhooks_workspace").on("webhooks").columns(["workspace_id", "created_at"]).execute();
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("webhook_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("event_id", "text", (col) => col.notNull())
    .addColumn("event_type", "text", (col) => col.notNull())
    .addColumn("dedup_key", "text", (col) => col.notNull())
    .addColumn("payload", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text")
    .addColumn("lease_until", "text")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("delivered_at", "text")
    .addUniqueConstraint("webhook_deliveries_once", ["webhook_id", "dedup_key"])
    .execute();
  await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["status", "next_attempt_at"]).execute();
  await db.schema.createIndex("webhook_deliveries_webhook").on("webhook_deliveries").columns(["webhook_id", "id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_deliveries").execute();
  await db.schema.dropTable("webhooks").execute();
}
