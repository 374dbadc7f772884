import type { Kysely, Selectable } from "kysely";
import {
  BUDGET_SOURCES,
  CALENDAR_UNITS,
  ROLLING_UNITS,
  WEEK_STARTS,
  type BudgetPeriodSpec,
  type BudgetRecord,
  type BudgetScope,
  type BudgetSource,
} from "../records/budget.ts";
import type { KeyRateLimit, Ownership } from "../records/control-plane.ts";
import type { BudgetsTable } from "./budget-tables.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import type { Database } from "./schema.ts";

export interface NewBudget extends Ownership {
  id: string;
  name: string;
  scope: BudgetScope;
  limitUsd: number | null;
  period: BudgetPeriodSpec;
  alertThresholds: readonly number[];
  rateLimit: KeyRateLimit | null;
  source: BudgetSource;
  createdAt: string;
}

/** Fields absent are kept. The scope and source of a budget never change. */
export interface BudgetChange {
  name?: string;
  limitUsd?: number | null;
  period?: BudgetPeriodSpec;
  alertThresholds?: readonly number[];
  rateLimit?: KeyRateLimit | null;
  updatedBy: string | null;
  at: string;
}

/** Budgets of a workspace. Every read and write is scoped to the workspace. */
export interface BudgetsRepository {
  create(budget: NewBudget): Promise<BudgetRecord>;
  /** Newest first. */
  list(workspaceId: string): Promise<BudgetRecord[]>;
  get(workspaceId: string, id: string): Promise<BudgetRecord | undefined>;
  update(workspaceId: string, id: string, change: BudgetChange): Promise<BudgetRecord | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** The budget a key's own `budget` and `rate_limit` fields set (`source` `key`), if any. */
  keyBudget(workspaceId: string, kind: "api_key" | "virtual_key", keyId: string): Promise<BudgetRecord | undefined>;
  /** Deletes every budget scoped to a key that is gone; how many. */
  deleteForKey(workspaceId: string, kind: "api_key" | "virtual_key", keyId: string): Promise<number>;
}

type BudgetRow = Selectable<BudgetsTable>;

export function createBudgetsRepository(db: Kysely<Database>): BudgetsRepository {
  return {
    async create(budget) {
      const row = toRow(budget);
      await db.insertInto("budgets").values(row).execute();
      return fromRow(row);
    },
    async list(workspaceId) {
      const rows = await db.selectFrom("budgets").selectAll().where("workspace_id", "=", workspaceId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
      return rows.map(fromRow);
    },
    async get(workspaceId, id) {
      const row = await db.selectFrom("budgets").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return row && fromRow(row);
    },
    async update(workspaceId, id, change) {
      const row = await db.updateTable("budgets").set(changedColumns(change)).where("workspace_id", "=", workspaceId).where("id", "=", id).returningAll().executeTakeFirst();
      return row && fromRow(row);
    },
    async delete(workspaceId, id) {
      const result = await db.deleteFrom("budgets").where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async keyBudget(workspaceId, kind, keyId) {
      const row = await db
        .selectFrom("budgets")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("scope_type", "=", kind)
        .where("scope_ref", "=", keyId)
        .where("source", "=", "key")
        .executeTakeFirst();
      return row && fromRow(row);
    },
    async deleteForKey(workspaceId, kind, keyId) {
      const result = await db.deleteFrom("budgets").where("workspace_id", "=", workspaceId).where("scope_type", "=", kind).where("scope_ref", "=", keyId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function toRow(budget: NewBudget): BudgetRow {
  return {
    id: budget.id,
    ...ownershipColumns(budget),
    name: budget.name,
    ...scopeColumns(budget.scope),
    limit_usd: budget.limitUsd,
    period: JSON.stringify(periodJson(budget.period)),
    alert_thresholds: JSON.stringify(budget.alertThresholds),
    rate_limit: budget.rateLimit === null ? null : JSON.stringify(budget.rateLimit),
    source: budget.source,
    created_at: budget.createdAt,
    updated_at: budget.createdAt,
  };
}

function changedColumns(change: BudgetChange): Partial<BudgetRow> {
  return {
    updated_by: change.updatedBy,
    updated_at: change.at,
    ...(change.name !== undefined && { name: change.name }),
    ...(change.limitUsd !== undefined && { limit_usd: change.limitUsd }),
    ...(change.period !== undefined && { period: JSON.stringify(periodJson(change.period)) }),
    ...(change.alertThresholds !== undefined && { alert_thresholds: JSON.stringify(change.alertThresholds) }),
    ...(change.rateLimit !== undefined && { rate_limit: change.rateLimit === null ? null : JSON.stringify(change.rateLimit) }),
  };
}

function scopeColumns(scope: BudgetScope): Pick<BudgetRow, "scope_type" | "scope_ref" | "scope_value"> {
  switch (scope.type) {
    case "workspace":
      return { scope_type: "workspace", scope_ref: null, scope_value: null };
    case "api_key":
      return { scope_type: "api_key", scope_ref: scope.apiKeyId, scope_value: null };
    case "virtual_key":
      return { scope_type: "virtual_key", scope_ref: scope.virtualKeyId, scope_value: scope.virtualKeySlug };
    case "user":
      return { scope_type: "user", scope_ref: scope.user, scope_value: null };
    case "metadata":
      return { scope_type: "metadata", scope_ref: scope.key, scope_value: scope.value };
    case "model":
      return { scope_type: "model", scope_ref: scope.model, scope_value: null };
  }
}

function scopeOf(row: BudgetRow): BudgetScope {
  switch (row.scope_type) {
    case "api_key":
      return { type: "api_key", apiKeyId: row.scope_ref ?? "" };
    case "virtual_key":
      return { type: "virtual_key", virtualKeyId: row.scope_ref ?? "", virtualKeySlug: row.scope_value ?? "" };
    case "user":
      return { type: "user", user: row.scope_ref };
    case "metadata":
      return { type: "metadata", key: row.scope_ref ?? "", value: row.scope_value };
    case "model":
      return { type: "model", model: row.scope_ref };
    default:
      return { type: "workspace" };
  }
}

/** The period as stored: the API's own shape. */
function periodJson(period: BudgetPeriodSpec): Record<string, unknown> {
  if (period.type === "calendar") return { type: "calendar", unit: period.unit, time_zone: period.timeZone, week_start: period.weekStart };
  if (period.type === "rolling") return { type: "rolling", unit: period.unit, count: period.count };
  return { type: "none" };
}

/** A stored period this code cannot read (a newer version's) reads as none: no reset, the safer side. */
function periodOf(text: string): BudgetPeriodSpec {
  const json = JSON.parse(text) as Record<string, unknown>;
  const oneOf = <T extends string>(values: readonly T[], value: unknown, fallback: T): T => ((values as readonly unknown[]).includes(value) ? (value as T) : fallback);
  if (json.type === "calendar" && typeof json.time_zone === "string") {
    return { type: "calendar", unit: oneOf(CALENDAR_UNITS, json.unit, "month"), timeZone: json.time_zone, weekStart: oneOf(WEEK_STARTS, json.week_start, "monday") };
  }
  if (json.type === "rolling" && typeof json.count === "number") return { type: "rolling", unit: oneOf(ROLLING_UNITS, json.unit, "hour"), count: json.count };
  return { type: "none" };
}

function fromRow(row: BudgetRow): BudgetRecord {
  return {
    id: row.id,
    ...ownershipOf(row),
    name: row.name,
    scope: scopeOf(row),
    limitUsd: row.limit_usd === null ? null : Number(row.limit_usd),
    period: periodOf(row.period),
    alertThresholds: (JSON.parse(row.alert_thresholds) as number[]).filter((value) => typeof value === "number"),
    rateLimit: row.rate_limit === null ? null : rateLimitOf(JSON.parse(row.rate_limit) as Record<string, unknown>),
    source: (BUDGET_SOURCES as readonly string[]).includes(row.source) ? (row.source as BudgetSource) : "budget",
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Rate limits are stored in either naming (the API's, as the migration wrote them, or the record's). */
function rateLimitOf(json: Record<string, unknown>): KeyRateLimit | null {
  const pick = (camel: string, snake: string): number | null => {
    const value = json[camel] ?? json[snake];
    return typeof value === "number" ? value : null;
  };
  const limit: KeyRateLimit = {
    requestsPerMinute: pick("requestsPerMinute", "requests_per_minute"),
    requestsPerHour: pick("requestsPerHour", "requests_per_hour"),
    requestsPerDay: pick("requestsPerDay", "requests_per_day"),
    tokensPerMinute: pick("tokensPerMinute", "tokens_per_minute"),
    tokensPerHour: pick("tokensPerHour", "tokens_per_hour"),
    tokensPerDay: pick("tokensPerDay", "tokens_per_day"),
  };
  return Object.values(limit).every((value) => value === null) ? null : limit;
}
