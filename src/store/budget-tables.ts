/**
 * The tables of budgets (and, beside them, what reports on them), part of the store's one
 * `Database` interface (`schema.ts`). Column types as there: text, integer, double precision;
 * JSON as text; timestamps ISO 8601 UTC text.
 */
export interface BudgetTables {
  budgets: BudgetsTable;
}

/** One budget (`records/budget.ts`). */
export interface BudgetsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  owner_id: string | null;
  updated_by: string | null;
  name: string;
  /** `workspace` | `api_key` | `virtual_key` | `user` | `metadata` | `model`. */
  scope_type: string;
  /** The gateway key id, virtual key id, end user, metadata key or model; null for the workspace, and for each end user or model. */
  scope_ref: string | null;
  /** The metadata value (null: each value); a virtual key's slug, for views. */
  scope_value: string | null;
  /** Null: no USD limit. */
  limit_usd: number | null;
  /** JSON text of the period (`{"type":"calendar","unit":"month","time_zone":"UTC","week_start":"monday"}`). */
  period: string;
  /** JSON array text of fractions. */
  alert_thresholds: string;
  /** JSON text of the rate limit; null: none. */
  rate_limit: string | null;
  /** `budget` | `key`. */
  source: string;
  created_at: string;
  updated_at: string;
}
