import type { Kysely } from "kysely";

/**
 * Keys, logs and log metadata. Frozen: never edit once released; add `0002_…` instead.
 * Typed against `Kysely<unknown>` on purpose, so later changes to `Database` cannot touch it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("role", "text", (col) => col.notNull())
    .addColumn("organisation_admin", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("key_hash", "text", (col) => col.notNull().unique())
    .addColumn("key_prefix", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("created_by", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_keys_workspace_idx").on("api_keys").column("workspace_id").execute();

  await db.schema
    .createTable("logs")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("api_key_id", "text")
    .addColumn("virtual_key_id", "text")
    .addColumn("provider", "text")
    .addColumn("model", "text")
    .addColumn("route", "text", (col) => col.notNull())
    .addColumn("method", "text", (col) => col.notNull())
    .addColumn("path", "text", (col) => col.notNull())
    .addColumn("status", "integer", (col) => col.notNull())
    .addColumn("success", "integer", (col) => col.notNull())
    .addColumn("stream", "integer", (col) => col.notNull())
    .addColumn("latency_ms", "double precision", (col) => col.notNull())
    .addColumn("time_to_first_token_ms", "double precision")
    .addColumn("prompt_tokens", "integer", (col) => col.notNull())
    .addColumn("completion_tokens", "integer", (col) => col.notNull())
    .addColumn("total_tokens", "integer", (col) => col.notNull())
    .addColumn("cached_tokens", "integer", (col) => col.notNull())
    .addColumn("reasoning_tokens", "integer", (col) => col.notNull())
    .addColumn("cost_usd", "double precision")
    .addColumn("end_user", "text")
    .addColumn("metadata", "text", (col) => col.notNull())
    .addColumn("trace_id", "text", (col) => col.notNull())
    .addColumn("span_id", "text")
    .addColumn("parent_span_id", "text")
    .addColumn("span_name", "text")
    .addColumn("request_body", "text")
    .addColumn("response_body", "text")
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .execute();
  await db.schema.createIndex("logs_workspace_id_idx").on("logs").columns(["workspace_id", "id"]).execute();
  await db.schema.createIndex("logs_workspace_trace_idx").on("logs").columns(["workspace_id", "trace_id"]).execute();
  await db.schema.createIndex("logs_workspace_user_idx").on("logs").columns(["workspace_id", "end_user"]).execute();
  await db.schema.createIndex("logs_workspace_model_idx").on("logs").columns(["workspace_id", "model"]).execute();

  await db.schema
    .createTable("log_metadata")
    .addColumn("log_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("key", "text", (col) => col.notNull())
    .addColumn("value", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("log_metadata_pk", ["log_id", "key"])
    .execute();
  await db.schema
    .createIndex("log_metadata_lookup_idx")
    .on("log_metadata")
    .columns(["workspace_id", "key", "value"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("log_metadata").execute();
  await db.schema.dropTable("logs").execute();
  await db.schema.dropTable("api_keys").execute();
}
