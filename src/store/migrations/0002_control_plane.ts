import type { CreateTableBuilder, Kysely } from "kysely";

/**
 * Control-plane resources (configs and their versions, virtual keys, prompts and their
 * versions, guardrails) and the prompt/guardrail columns of `logs`. Frozen: never edit once
 * released; add `0003_…` instead. Typed against `Kysely<unknown>`, like 0001.
 *
 * SQLite adds one column per `ALTER TABLE`, so each new `logs` column is its own statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").addColumn("prompt_id", "text").execute();
  await db.schema.alterTable("logs").addColumn("prompt_version", "integer").execute();
  await db.schema.alterTable("logs").addColumn("guardrail_results", "text").execute();
  await db.schema.createIndex("logs_workspace_prompt_idx").on("logs").columns(["workspace_id", "prompt_id"]).execute();

  await owned(db.schema.createTable("configs"))
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("slug", "text", (col) => col.notNull().unique())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("is_default", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("status", "text", (col) => col.notNull().defaultTo("active"))
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("last_updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("configs_workspace_idx").on("configs").column("workspace_id").execute();

  await owned(db.schema.createTable("config_versions"))
    .addColumn("version_id", "text", (col) => col.primaryKey())
    .addColumn("config_id", "text", (col) => col.notNull().references("configs.id"))
    .addColumn("version_number", "integer", (col) => col.notNull())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("config", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addUniqueConstraint("config_versions_number_unique", ["config_id", "version_number"])
    .execute();

  await owned(db.schema.createTable("virtual_keys"))
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("slug", "text", (col) => col.notNull().unique())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("encrypted_key", "text", (col) => col.notNull())
    .addColumn("key_hint", "text", (col) => col.notNull())
    .addColumn("upstream_organization", "text")
    .addColumn("upstream_project", "text")
    .addColumn("custom_host", "text")
    .addColumn("budget_credit_limit_usd", "double precision")
    .addColumn("budget_period", "text")
    .addColumn("rate_limit_rpm", "integer")
    .addColumn("rate_limit_tpm", "integer")
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("virtual_keys_workspace_idx").on("virtual_keys").column("workspace_id").execute();

  await owned(db.schema.createTable("prompts"))
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("default_version", "integer", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("prompts_workspace_idx").on("prompts").column("workspace_id").execute();

  await owned(db.schema.createTable("prompt_versions"))
    .addColumn("version_id", "text", (col) => col.primaryKey())
    .addColumn("prompt_id", "text", (col) => col.notNull().references("prompts.id"))
    .addColumn("version_number", "integer", (col) => col.notNull())
    .addColumn("model", "text", (col) => col.notNull())
    .addColumn("provider", "text")
    .addColumn("virtual_key", "text")
    .addColumn("messages", "text", (col) => col.notNull())
    .addColumn("hyperparameters", "text", (col) => col.notNull())
    .addColumn("variables", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("created_by", "text")
    .addUniqueConstraint("prompt_versions_number_unique", ["prompt_id", "version_number"])
    .execute();

  await owned(db.schema.createTable("guardrails"))
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("slug", "text", (col) => col.notNull().unique())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("checks", "text", (col) => col.notNull())
    .addColumn("action", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("guardrails_workspace_idx").on("guardrails").column("workspace_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("guardrails").execute();
  await db.schema.dropTable("prompt_versions").execute();
  await db.schema.dropTable("prompts").execute();
  await db.schema.dropTable("virtual_keys").execute();
  await db.schema.dropTable("config_versions").execute();
  await db.schema.dropTable("configs").execute();
  await db.schema.dropIndex("logs_workspace_prompt_idx").execute();
  await db.schema.alterTable("logs").dropColumn("guardrail_results").execute();
  await db.schema.alterTable("logs").dropColumn("prompt_version").execute();
  await db.schema.alterTable("logs").dropColumn("prompt_id").execute();
}

/** The ownership columns every control-plane table carries. */
function owned<T extends string>(table: CreateTableBuilder<T>): CreateTableBuilder<T> {
  return table
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("owner_id", "text")
    .addColumn("updated_by", "text");
}
