import type { BudgetPeriod, KeyRateLimit, Ownership } from "./control-plane.ts";

/**
 * A budget: a USD limit and rate limits over a period, held by every request that falls in its
 * scope (`spend/budget-index.ts`). The limits a key sets through its own `budget` and
 * `rate_limit` fields are the budget of that key whose `source` is `key`.
 */
export interface BudgetRecord extends Ownership {
  id: string;
  name: string;
  scope: BudgetScope;
  /** Null: no USD limit (a budget of rate limits alone). */
  limitUsd: number | null;
  period: BudgetPeriodSpec;
  /** Fractions in (0, 1], ascending: crossing one sends `budget.threshold_crossed` once per period. */
  alertThresholds: readonly number[];
  rateLimit: KeyRateLimit | null;
  /** `key`: set through a key's own `budget` and `rate_limit` fields, changed only there. */
  source: BudgetSource;
  createdAt: string;
  updatedAt: string;
}

export const BUDGET_SOURCES = ["budget", "key"] as const;
export type BudgetSource = (typeof BUDGET_SOURCES)[number];

export const BUDGET_SCOPE_TYPES = ["workspace", "api_key", "virtual_key", "user", "metadata", "model"] as const;
export type BudgetScopeType = (typeof BUDGET_SCOPE_TYPES)[number];

/**
 * Who a budget holds. For `user`, `metadata` and `model` a null value means each value
 * separately: every end user (metadata value, model) has the limit to itself.
 */
export type BudgetScope =
  | { type: "workspace" }
  | { type: "api_key"; apiKeyId: string }
  | { type: "virtual_key"; virtualKeyId: string; virtualKeySlug: string }
  | { type: "user"; user: string | null }
  | { type: "metadata"; key: string; value: string | null }
  | { type: "model"; model: string | null };

export const CALENDAR_UNITS = ["day", "week", "month"] as const;
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];

export const WEEK_STARTS = ["monday", "sunday"] as const;
export type WeekStart = (typeof WEEK_STARTS)[number];

export const ROLLING_UNITS = ["hour", "day"] as const;
export type RollingUnit = (typeof ROLLING_UNITS)[number];

/**
 * When spend starts again from 0: never (`none`); at each calendar day, week or month in an IANA
 * time zone (`calendar`); or never as such, spend leaving a window of the last N hours or days
 * as it ages (`rolling`).
 */
export type BudgetPeriodSpec =
  | { type: "none" }
  | { type: "calendar"; unit: CalendarUnit; timeZone: string; weekStart: WeekStart }
  | { type: "rolling"; unit: RollingUnit; count: number };

/** The longest rolling window, in hours (31 days). */
export const MAX_ROLLING_HOURS = 31 * 24;

/** The period a key's own `budget.period` names: UTC days, ISO weeks (Monday), months. */
export function keyPeriodSpec(period: BudgetPeriod): BudgetPeriodSpec {
  if (period === "none") return { type: "none" };
  const unit = period === "daily" ? "day" : period === "weekly" ? "week" : "month";
  return { type: "calendar", unit, timeZone: "UTC", weekStart: "monday" };
}

/** The key period a budget's period is, when it is one (UTC calendar, Monday weeks, or none); else null. */
export function keyPeriodOf(spec: BudgetPeriodSpec): BudgetPeriod | null {
  if (spec.type === "none") return "none";
  if (spec.type !== "calendar" || spec.timeZone !== "UTC" || spec.weekStart !== "monday") return null;
  return spec.unit === "day" ? "daily" : spec.unit === "week" ? "weekly" : "monthly";
}
