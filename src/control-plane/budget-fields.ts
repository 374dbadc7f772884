import { GatewayError } from "../errors.ts";
import type { BudgetMember, BudgetPeriod, BudgetScope as BudgetScopeBody, Budget, BudgetScopeView } from "../generated/schemas.gen.ts";
import { MAX_ROLLING_HOURS, type BudgetPeriodSpec, type BudgetRecord, type BudgetScope } from "../records/budget.ts";
import { OPERATOR_KEY_ID } from "./auth-context.ts";
import { isTimeZone } from "../lib/zoned-time.ts";
import { rateLimitView } from "./virtual-key-fields.ts";

/**
 * The rules of a budget's fields beyond the document's schema: which scope fields a scope type
 * takes, which period fields a period type takes, a known time zone, a window within 31 days,
 * thresholds with a USD limit. Each refusal is a 400 naming the field.
 */

function refuse(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

const SCOPE_FIELDS = {
  workspace: { required: [], optional: [] },
  api_key: { required: ["api_key_id"], optional: [] },
  virtual_key: { required: ["virtual_key"], optional: [] },
  user: { required: [], optional: ["user"] },
  metadata: { required: ["key"], optional: ["value"] },
  model: { required: [], optional: ["model"] },
} as const satisfies Record<BudgetScopeBody["type"], { required: readonly string[]; optional: readonly string[] }>;

/** A scope as the body gives it, its fields checked; a virtual key still named by slug (the route resolves it). Throws GatewayError (400). */
export function checkedScope(scope: BudgetScopeBody): BudgetScopeBody {
  const rule = SCOPE_FIELDS[scope.type];
  for (const field of Object.keys(scope)) {
    if (field === "type") continue;
    if (!(rule.required as readonly string[]).includes(field) && !(rule.optional as readonly string[]).includes(field)) {
      throw refuse(`scope.${field}`, `A ${scope.type} scope takes no ${field}.`);
    }
  }
  for (const field of rule.required) {
    if ((scope as Record<string, unknown>)[field] === undefined) throw refuse(`scope.${field}`, `A ${scope.type} scope needs ${field}.`);
  }
  return scope;
}

/** A period as the body gives it, checked and completed with its defaults. Throws GatewayError (400). */
export function checkedPeriod(period: BudgetPeriod): BudgetPeriodSpec {
  const has = (field: keyof BudgetPeriod) => period[field] !== undefined;
  const none = (fields: (keyof BudgetPeriod)[]) => {
    for (const field of fields) if (has(field)) throw refuse(`period.${field}`, `A ${period.type} period takes no ${field}.`);
  };
  if (period.type === "none") {
    none(["unit", "time_zone", "week_start", "count"]);
    return { type: "none" };
  }
  if (period.type === "calendar") {
    none(["count"]);
    if (period.unit !== "day" && period.unit !== "week" && period.unit !== "month") throw refuse("period.unit", "A calendar period's unit is day, week or month.");
    const timeZone = period.time_zone ?? "UTC";
    if (!isTimeZone(timeZone)) throw refuse("period.time_zone", `Unknown time zone "${timeZone.slice(0, 64)}": give an IANA time zone such as Europe/Berlin.`);
    if (has("week_start") && period.unit !== "week") throw refuse("period.week_start", "Only a calendar week takes week_start.");
    return { type: "calendar", unit: period.unit, timeZone, weekStart: period.week_start ?? "monday" };
  }
  none(["time_zone", "week_start"]);
  if (period.unit !== "hour" && period.unit !== "day") throw refuse("period.unit", "A rolling period's unit is hour or day.");
  if (period.count === undefined) throw refuse("period.count", "A rolling period needs count: how many hours or days.");
  if (period.count * (period.unit === "day" ? 24 : 1) > MAX_ROLLING_HOURS) throw refuse("period.count", `A rolling window lasts at most ${MAX_ROLLING_HOURS} hours (31 days).`);
  return { type: "rolling", unit: period.unit, count: period.count };
}

/** Thresholds ascending, each once; they need a USD limit. Throws GatewayError (400). */
export function checkedThresholds(thresholds: readonly number[] | undefined, limitUsd: number | null): number[] {
  if (!thresholds || thresholds.length === 0) return [];
  if (limitUsd === null) throw refuse("alert_thresholds", "Alert thresholds are fractions of limit_usd: the budget needs limit_usd.");
  for (const [index, value] of thresholds.entries()) {
    if (!(value > 0 && value <= 1)) throw refuse(`alert_thresholds.${index}`, "An alert threshold is a fraction in (0, 1].");
  }
  return [...new Set(thresholds)].sort((a, b) => a - b);
}

/** A budget holds at least one limit. Throws GatewayError (400). */
export function requireSomeLimit(limitUsd: number | null, rateLimit: unknown): void {
  if (limitUsd === null && rateLimit === null) throw refuse("limit_usd", "A budget needs limit_usd, rate_limit or both.");
}

/** The period as the API shows it. */
export function periodView(period: BudgetPeriodSpec): BudgetPeriod {
  if (period.type === "calendar") {
    return { type: "calendar", unit: period.unit, time_zone: period.timeZone, ...(period.unit === "week" && { week_start: period.weekStart }) };
  }
  if (period.type === "rolling") return { type: "rolling", unit: period.unit, count: period.count };
  return { type: "none" };
}

function scopeView(scope: BudgetScope): BudgetScopeView {
  switch (scope.type) {
    case "workspace":
      return { type: "workspace" };
    case "api_key":
      return { type: "api_key", api_key_id: scope.apiKeyId };
    case "virtual_key":
      return { type: "virtual_key", virtual_key: scope.virtualKeySlug, virtual_key_id: scope.virtualKeyId };
    case "user":
      return { type: "user", user: scope.user };
    case "metadata":
      return { type: "metadata", key: scope.key, value: scope.value };
    case "model":
      return { type: "model", model: scope.model };
  }
}

/** Whether a budget is held per value (each end user, metadata value or model). */
export function heldPerValue(scope: BudgetScope): boolean {
  return (scope.type === "user" && scope.user === null) || (scope.type === "metadata" && scope.value === null) || (scope.type === "model" && scope.model === null);
}

/** A budget's use, as its view shows it (null fields: not known without a member). */
export interface BudgetUseView {
  spent_usd: number | null;
  remaining_usd: number | null;
  period_start: string | null;
  period_end: string | null;
  forecast_usd: number | null;
}

/** The budget as the API shows it: its fields, then its use; the audit log keeps the fields alone (`budgetAuditView`). */
export function budgetView(record: BudgetRecord, use: BudgetUseView, members: BudgetMember[]): Budget {
  return { ...budgetAuditView(record), ...use, members };
}

/** A budget's fields without its use: what the audit log records of it. */
export function budgetAuditView(record: BudgetRecord): Omit<Budget, keyof BudgetUseView | "members"> {
  return {
    id: record.id,
    object: "budget",
    name: record.name,
    scope: scopeView(record.scope),
    limit_usd: record.limitUsd,
    period: periodView(record.period),
    alert_thresholds: [...record.alertThresholds],
    rate_limit: rateLimitView(record.rateLimit),
    source: record.source,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    owner_id: record.ownerId ?? OPERATOR_KEY_ID,
    updated_by: record.updatedBy ?? OPERATOR_KEY_ID,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
