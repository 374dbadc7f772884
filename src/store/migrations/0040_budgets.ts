import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";

/**
 * `budgets`: a USD limit and rate limits over a period, for a scope (the workspace, a gateway
 * key, a virtual key, an end user, a metadata value, a model). The budget and rate limit every
 * gateway key and virtual key held in its own columns become budgets of that key's scope with
 * `source` `key` (the columns are kept as the key's view of them), and the key's settled spend
 * (`key_spend`) moves to the budget: period starts are the same UTC instants, so spend goes on
 * from what was counted. Frozen: add `0041_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("budgets")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("owner_id", "text")
    .addColumn("updated_by", "text")
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("scope_type", "text", (col) => col.notNull())
    .addColumn("scope_ref", "text")
    .addColumn("scope_value", "text")
    .addColumn("limit_usd", "double precision")
    .addColumn("period", "text", (col) => col.notNull())
    .addColumn("alert_thresholds", "text", (col) => col.notNull().defaultTo("[]"))
    .addColumn("rate_limit", "text")
    .addColumn("source", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("budgets_workspace").on("budgets").columns(["workspace_id", "created_at"]).execute();

  const now = new Date().toISOString();
  const virtualKeys = await sql<KeyRow & { slug: string; owner_id: string | null; updated_by: string | null }>`
    select id, slug, organisation_id, workspace_id, owner_id, updated_by, ${sql.raw(LIMIT_COLUMNS)} from virtual_keys`.execute(db);
  for (const key of virtualKeys.rows) {
    await moveKeyLimits(db, key, { kind: "virtual_key", name: `virtual key ${key.slug}`, ref: key.id, value: key.slug, owner: key.owner_id, updatedBy: key.updated_by }, now);
  }
  const apiKeys = await sql<KeyRow & { name: string }>`
    select id, name, organisation_id, workspace_id, ${sql.raw(LIMIT_COLUMNS)} from api_keys`.execute(db);
  for (const key of apiKeys.rows) {
    await moveKeyLimits(db, key, { kind: "api_key", name: `gateway key ${key.name}`, ref: key.id, value: null, owner: null, updatedBy: null }, now);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const moved = await sql<{ id: string; scope_type: string; scope_ref: string }>`select id, scope_type, scope_ref from budgets where source = 'key'`.execute(db);
  for (const budget of moved.rows) {
    await sql`update key_spend set key_kind = ${budget.scope_type}, key_id = ${budget.scope_ref} where key_kind = 'budget' and key_id = ${budget.id}`.execute(db);
  }
  await db.schema.dropTable("budgets").execute();
}

const LIMIT_COLUMNS =
  "budget_credit_limit_usd, budget_period, budget_alert_threshold, rate_limit_rpm, rate_limit_rph, rate_limit_rpd, rate_limit_tpm, rate_limit_tph, rate_limit_tpd";

interface KeyRow {
  id: string;
  organisation_id: string;
  workspace_id: string;
  budget_credit_limit_usd: number | null;
  budget_period: string | null;
  budget_alert_threshold: number | null;
  rate_limit_rpm: number | null;
  rate_limit_rph: number | null;
  rate_limit_rpd: number | null;
  rate_limit_tpm: number | null;
  rate_limit_tph: number | null;
  rate_limit_tpd: number | null;
}

async function moveKeyLimits(
  db: Kysely<unknown>,
  key: KeyRow,
  scope: { kind: "virtual_key" | "api_key"; name: string; ref: string; value: string | null; owner: string | null; updatedBy: string | null },
  now: string,
): Promise<void> {
  const rateLimit = {
    requests_per_minute: key.rate_limit_rpm,
    requests_per_hour: key.rate_limit_rph,
    requests_per_day: key.rate_limit_rpd,
    tokens_per_minute: key.rate_limit_tpm,
    tokens_per_hour: key.rate_limit_tph,
    tokens_per_day: key.rate_limit_tpd,
  };
  const limited = Object.values(rateLimit).some((value) => value !== null);
  const limit = key.budget_credit_limit_usd === null ? null : Number(key.budget_credit_limit_usd);
  if (limit === null && !limited) return;
  const id = randomUUID();
  const threshold = key.budget_alert_threshold === null ? null : Number(key.budget_alert_threshold);
  await sql`insert into budgets (id, organisation_id, workspace_id, owner_id, updated_by, name, scope_type, scope_ref, scope_value, limit_usd, period, alert_thresholds, rate_limit, source, created_at, updated_at)
    values (${id}, ${key.organisation_id}, ${key.workspace_id}, ${scope.owner}, ${scope.updatedBy}, ${scope.name}, ${scope.kind}, ${scope.ref}, ${scope.value}, ${limit},
      ${JSON.stringify(periodOf(key.budget_period))}, ${JSON.stringify(threshold !== null && threshold > 0 ? [threshold] : [])},
      ${limited ? JSON.stringify(Object.fromEntries(Object.entries(rateLimit).filter(([, value]) => value !== null))) : null}, 'key', ${now}, ${now})`.execute(db);
  await sql`update key_spend set key_kind = 'budget', key_id = ${id} where key_kind = ${scope.kind} and key_id = ${key.id}`.execute(db);
}

/** A key's period name as a budget period: UTC calendar days, ISO weeks, months; anything else never resets. */
function periodOf(period: string | null): object {
  if (period === "daily" || period === "weekly" || period === "monthly") {
    return { type: "calendar", unit: period === "daily" ? "day" : period === "weekly" ? "week" : "month", time_zone: "UTC", week_start: "monday" };
  }
  return { type: "none" };
}
