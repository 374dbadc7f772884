import type { Kysely } from "kysely";

/**
 * The gateway's own batches over providers whose batch APIs are not OpenAI's (`batches/`):
 * `gateway_files` holds files uploaded for them and the output files the gateway writes;
 * `gateway_batches` one row per batch (the provider's job, its files, status and counts);
 * `gateway_batch_lines` one row per result line logged, so that a line is logged once whoever
 * polls. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("gateway_files")
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("id", "text", (col) => col.notNull())
    .addColumn("purpose", "text", (col) => col.notNull())
    .addColumn("filename", "text", (col) => col.notNull())
    .addColumn("bytes", "integer", (col) => col.notNull())
    .addColumn("content", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("gateway_files_pk", ["workspace_id", "id"])
    .execute();
  await db.schema
    .createTable("gateway_batches")
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("id", "text", (col) => col.notNull())
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("virtual_key_id", "text")
    .addColumn("api_key_id", "text")
    .addColumn("provider_job_id", "text", (col) => col.notNull())
    .addColumn("input_file_id", "text", (col) => col.notNull())
    .addColumn("output_file_id", "text")
    .addColumn("error_file_id", "text")
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("endpoint", "text", (col) => col.notNull())
    .addColumn("completion_window", "text", (col) => col.notNull())
    .addColumn("request_counts", "text", (col) => col.notNull())
    .addColumn("metadata", "text")
    .addColumn("errors", "text")
    .addColumn("storage", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .addColumn("finished_at", "text")
    .addPrimaryKeyConstraint("gateway_batches_pk", ["workspace_id", "id"])
    .execute();
  await db.schema
    .createTable("gateway_batch_lines")
    .addColumn("batch_id", "text", (col) => col.notNull())
    .addColumn("custom_id", "text", (col) => col.notNull())
    .addColumn("log_id", "text", (col) => col.notNull())
    .addColumn("logged_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("gateway_batch_lines_pk", ["batch_id", "custom_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("gateway_batch_lines").execute();
  await db.schema.dropTable("gateway_batches").execute();
  await db.schema.dropTable("gateway_files").execute();
}
