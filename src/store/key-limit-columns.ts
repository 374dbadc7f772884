import { BUDGET_PERIODS, type BudgetPeriod, type KeyBudget, type KeyRateLimit } from "../records/control-plane.ts";
import type { KeyLimitColumns } from "./schema.ts";

/** The columns of a budget (all null: none). */
export function budgetColumns(budget: KeyBudget | null): Pick<KeyLimitColumns, "budget_credit_limit_usd" | "budget_period" | "budget_alert_threshold"> {
  return {
    budget_credit_limit_usd: budget?.creditLimitUsd ?? null,
    budget_period: budget?.period ?? null,
    budget_alert_threshold: budget?.alertThreshold ?? null,
  };
}

type RateLimitColumns = Omit<KeyLimitColumns, "budget_credit_limit_usd" | "budget_period" | "budget_alert_threshold">;

/** The columns of a rate limit (all null: none). */
export function rateLimitColumns(limit: KeyRateLimit | null): RateLimitColumns {
  return {
    rate_limit_rpm: limit?.requestsPerMinute ?? null,
    rate_limit_rph: limit?.requestsPerHour ?? null,
    rate_limit_rpd: limit?.requestsPerDay ?? null,
    rate_limit_tpm: limit?.tokensPerMinute ?? null,
    rate_limit_tph: limit?.tokensPerHour ?? null,
    rate_limit_tpd: limit?.tokensPerDay ?? null,
  };
}

export function budgetOf(row: KeyLimitColumns): KeyBudget | null {
  if (row.budget_credit_limit_usd === null) return null;
  return { creditLimitUsd: row.budget_credit_limit_usd, period: budgetPeriod(row.budget_period), alertThreshold: row.budget_alert_threshold };
}

/** Null when no window is limited, so an unlimited key costs the request path nothing. */
export function rateLimitOf(row: KeyLimitColumns): KeyRateLimit | null {
  const limit: KeyRateLimit = {
    requestsPerMinute: row.rate_limit_rpm,
    requestsPerHour: row.rate_limit_rph,
    requestsPerDay: row.rate_limit_rpd,
    tokensPerMinute: row.rate_limit_tpm,
    tokensPerHour: row.rate_limit_tph,
    tokensPerDay: row.rate_limit_tpd,
  };
  return Object.values(limit).every((value) => value === null) ? null : limit;
}

/** A period this code does not know (stored by a newer version) reads as `none`: no reset, the safer side. */
function budgetPeriod(period: string | null): BudgetPeriod {
  return (BUDGET_PERIODS as readonly (string | null)[]).includes(period) ? (period as BudgetPeriod) : "none";
}
