import type { Kysely } from "kysely";

/**
 * Budgets and rate limits on gateway keys as on virtual keys (plus an alert threshold and
 * hour/day windows on both), and `key_spend`: the settled spend of a key in one budget
 * period, added to in batches by each replica (`spend/spend-flusher.ts`). Frozen: add
 * `0011_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ["budget_alert_threshold"] as const) {
    await db.schema.alterTable("virtual_keys").addColumn(column, "double precision").execute();
  }
  for (const column of ["rate_limit_rph", "rate_limit_rpd", "rate_limit_tph", "rate_limit_tpd"] as const) {
    await db.schema.alterTable("virtual_keys").addColumn(column, "integer").execute();
  }
  for (const column of ["budget_credit_limit_usd", "budget_alert_threshold"] as const) {
    await db.schema.alterTable("api_keys").addColumn(column, "double precision").execute();
  }
  await db.schema.alterTable("api_keys").addColumn("budget_period", "text").execute();
  for (const column of ["rate_limit_rpm", "rate_limit_rph", "rate_limit_rpd", "rate_limit_tpm", "rate_limit_tph", "rate_limit_tpd"] as const) {
    await db.schema.alterTable("api_keys").addColumn(column, "integer").execute();
  }
  await db.schema
    .createTable("key_spend")
    .addColumn("key_kind", "text", (col) => col.notNull())
    .addColumn("key_id", "text", (col) => col.notNull())
    .addColumn("period_start", "text", (col) => col.notNull())
    .addColumn("spent_usd", "double precision", (col) => col.notNull().defaultTo(0))
    .addColumn("updated_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("key_spend_pk", ["key_kind", "key_id", "period_start"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("key_spend").execute();
  for (const column of ["budget_alert_threshold", "rate_limit_rph", "rate_limit_rpd", "rate_limit_tph", "rate_limit_tpd"]) {
    await db.schema.alterTable("virtual_keys").dropColumn(column).execute();
  }
  for (const column of ["budget_credit_limit_usd", "budget_alert_threshold", "budget_period", "rate_limit_rpm", "rate_limit_rph", "rate_limit_rpd", "rate_limit_tpm", "rate_limit_tph", "rate_limit_tpd"]) {
    await db.schema.alterTable("api_keys").dropColumn(column).execute();
  }
}
