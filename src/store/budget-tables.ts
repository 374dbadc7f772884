/**
 * The tables of budgets and of what reports on them (webhooks and their deliveries, the bill
 * reconciled with the provider's), part of the store's one
 * `Database` interface (`schema.ts`). Column types as there: text, integer, double precision;
 * JSON as text; timestamps ISO 8601 UTC text.
 */
export interface BudgetTables {
  budgets: BudgetsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  reconciliation_settings: ReconciliationSettingsTable;
  reconciliation_rows: ReconciliationRowsTable;
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

/** A webhook: where the workspace's events go (`records/webhook.ts`). */
export interface WebhooksTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  owner_id: string | null;
  updated_by: string | null;
  url: string;
  description: string | null;
  /** JSON text of the sealed secret (`{"$sealed": …}`). */
  secret: string;
  /** JSON array text of event types. */
  events: string;
  /** 0/1. */
  enabled: number;
  created_at: string;
  updated_at: string;
}

/** One event's delivery to one webhook; `(webhook_id, dedup_key)` is unique, which makes an event once per webhook. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_id: string;
  event_type: string;
  dedup_key: string;
  payload: string;
  /** `pending` | `delivered` | `failed`. */
  status: string;
  attempts: number;
  /** When a pending delivery is next tried; null once it ended. */
  next_attempt_at: string | null;
  /** A replica sending it holds it until then; null when none does. */
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** How a virtual key's bill is read from its provider (`records/reconciliation.ts`); one row per key. */
export interface ReconciliationSettingsTable {
  virtual_key_id: string;
  organisation_id: string;
  workspace_id: string;
  provider: string;
  /** JSON text of the sealed usage-reading credential. */
  admin_key: string;
  base_url: string | null;
  project_id: string | null;
  api_key_id: string | null;
  provider_workspace_id: string | null;
  drift_threshold_usd: number;
  drift_threshold_ratio: number;
  last_daily_run: string | null;
  updated_by: string | null;
  created_at: string;
  updated_at: string;
}

/** The last comparison of one key, day and model: `(virtual_key_id, date, model)` is unique. */
export interface ReconciliationRowsTable {
  virtual_key_id: string;
  workspace_id: string;
  date: string;
  model: string;
  gateway_cost_usd: number;
  gateway_input_tokens: number;
  gateway_output_tokens: number;
  gateway_requests: number;
  provider_cost_usd: number | null;
  provider_input_tokens: number;
  provider_output_tokens: number;
  drift_usd: number | null;
  drift_ratio: number | null;
  /** 0/1. */
  drifted: number;
  checked_at: string;
}
