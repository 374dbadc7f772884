import type { Kysely } from "kysely";

/**
 * `reconciliation_settings`: per virtual key, how its provider's cost and usage reports are read
 * (a sealed usage-reading credential, the project, API key or workspace its rows are matched by,
 * drift thresholds, the last day the daily run took it); `reconciliation_rows`: the last
 * comparison of each key, UTC day and model, gateway against provider. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("reconciliation_settings")
    .addColumn("virtual_key_id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("admin_key", "text", (col) => col.notNull())
    .addColumn("base_url", "text")
    .addColumn("project_id", "text")
    .addColumn("api_key_id", "text")
    .addColumn("provider_workspace_id", "text")
    .addColumn("drift_threshold_usd", "double precision", (col) => col.notNull())
    .addColumn("drift_threshold_ratio", "double precision", (col) => col.notNull())
    .addColumn("last_daily_run", "text")
    .addColumn("updated_by", "text")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("reconciliation_rows")
    .addColumn("virtual_key_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("date", "text", (col) => col.notNull())
    .addColumn("model", "text", (col) => col.notNull())
    .addColumn("gateway_cost_usd", "double precision", (col) => col.notNull())
    .addColumn("gateway_input_tokens", "integer", (col) => col.notNull())
    .addColumn("gateway_output_tokens", "integer", (col) => col.notNull())
    .addColumn("gateway_requests", "integer", (col) => col.notNull())
    .addColumn("provider_cost_usd", "double precision")
    .addColumn("provider_input_tokens", "integer", (col) => col.notNull())
    .addColumn("provider_output_tokens", "integer", (col) => col.notNull())
    .addColumn("drift_usd", "double precision")
    .addColumn("drift_ratio", "double precision")
    .addColumn("drifted", "integer", (col) => col.notNull())
    .addColumn("checked_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("reconciliation_rows_pk", ["virtual_key_id", "date", "model"])
    .execute();
  await db.schema.createIndex("reconciliation_rows_workspace").on("reconciliation_rows").columns(["workspace_id", "date"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("reconciliation_rows").execute();
  await db.schema.dropTable("reconciliation_settings").execute();
}
