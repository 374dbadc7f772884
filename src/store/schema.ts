import type { LogsTable } from "../records/log-fields.ts";
import type { LogRollupsTable } from "./log-rollup-rows.ts";
import type { BudgetTables } from "./budget-tables.ts";

/** One logged request, derived from the log field table (`records/log-fields.ts`). */
export type { LogsTable };

/**
 * The one Kysely `Database` interface of the gateway's store.
 *
 * Column types are the portable subset shared by SQLite and PostgreSQL: `text`, `integer`
 * and `double precision`. Booleans are integers 0/1, timestamps are ISO 8601 UTC text with
 * milliseconds (`2026-01-02T03:04:05.678Z`), so they sort and compare as text. No `bigint`:
 * the pg driver returns it as a string.
 *
 * Migrations never import this file: they are frozen in time, this interface moves on.
 */
export interface Database extends BudgetTables {
  api_keys: ApiKeysTable;
  logs: LogsTable;
  log_metadata: LogMetadataTable;
  /** Analytics sums per workspace, hour and dimension value (`log-rollup-rows.ts`). */
  log_rollups: LogRollupsTable;
  /** PostgreSQL only: the hour before which `log_rollups` holds every stored log (`log-rollup-build.ts`). */
  log_rollup_progress: { id: number; built_until: string; user_hours_from: string | null };
  /** The metadata keys each workspace declared as analytics dimensions (`analytics-dimensions-repository.ts`). */
  analytics_dimensions: { workspace_id: string; key: string; declared_at: string; rollups_from: string };
  configs: ConfigsTable;
  config_versions: ConfigVersionsTable;
  virtual_keys: VirtualKeysTable;
  prompts: PromptsTable;
  prompt_versions: PromptVersionsTable;
  prompt_labels: PromptLabelsTable;
  guardrails: GuardrailsTable;
  feedback: FeedbackTable;
  stored_responses: StoredResponsesTable;
  key_spend: KeySpendTable;
  audit_events: AuditEventsTable;
  semantic_cache_entries: SemanticCacheEntriesTable;
  mcp_servers: McpServersTable;
  experiments: ExperimentsTable;
  gateway_files: GatewayFilesTable;
  gateway_batches: GatewayBatchesTable;
  gateway_batch_lines: GatewayBatchLinesTable;
}

/** Files the gateway keeps for its own batches (`store/batches-repository.ts`): the content as text. */
export interface GatewayFilesTable {
  workspace_id: string;
  id: string;
  purpose: string;
  filename: string;
  bytes: number;
  content: string;
  created_at: string;
}

/** The gateway's own batches over a provider's batch API (`store/batches-repository.ts`); JSON as text. */
export interface GatewayBatchesTable {
  workspace_id: string;
  id: string;
  provider: string;
  virtual_key_id: string | null;
  api_key_id: string | null;
  provider_job_id: string;
  input_file_id: string;
  output_file_id: string | null;
  error_file_id: string | null;
  status: string;
  endpoint: string;
  completion_window: string;
  request_counts: string;
  metadata: string | null;
  errors: string | null;
  storage: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** One result line of a gateway batch, logged (`store/batches-repository.ts`). */
export interface GatewayBatchLinesTable {
  batch_id: string;
  custom_id: string;
  log_id: string;
  logged_at: string;
}

/** An experiment (`experiments-repository.ts`); variants, guards and the stop reason as JSON text. */
export interface ExperimentsTable extends OwnedColumns {
  id: string;
  name: string;
  description: string | null;
  status: string;
  assignment: string;
  prompt_id: string | null;
  variants: string;
  guards: string;
  alpha: number;
  started_at: string | null;
  stopped_at: string | null;
  concluded_at: string | null;
  stop_reason: string | null;
  promoted_variant: string | null;
  created_at: string;
  updated_at: string;
}

/** One control-plane write (`audit/`); `before`/`after` are the masked API views as JSON text. */
export interface AuditEventsTable {
  /** UUIDv7: time order. */
  id: string;
  organisation_id: string;
  workspace_id: string;
  actor_key_id: string;
  action: string;
  resource_type: string;
  resource_id: string;
  resource_slug: string | null;
  before: string | null;
  after: string | null;
  request_id: string | null;
  created_at: string;
}

/** The settled spend of one key in one budget period; replicas add their batches to it. */
export interface KeySpendTable {
  /** `virtual_key` | `api_key`. */
  key_kind: string;
  key_id: string;
  /** ISO start of the UTC period; `none` for a budget that never resets. */
  period_start: string;
  spent_usd: number;
  updated_at: string;
}

/** Budget and rate-limit columns, the same on gateway keys and virtual keys (null: not set). */
export interface KeyLimitColumns {
  budget_credit_limit_usd: number | null;
  /** `none` | `daily` | `weekly` | `monthly`; null with no budget. */
  budget_period: string | null;
  budget_alert_threshold: number | null;
  rate_limit_rpm: number | null;
  rate_limit_rph: number | null;
  rate_limit_rpd: number | null;
  rate_limit_tpm: number | null;
  rate_limit_tph: number | null;
  rate_limit_tpd: number | null;
}

/** Gateway keys. Only the SHA-256 hash of a secret is kept (`key_hash`, unique). */
export interface ApiKeysTable extends KeyLimitColumns {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  /** `admin` | `service`. */
  role: string;
  /** 0/1. */
  organisation_admin: number;
  key_hash: string;
  key_prefix: string;
  created_at: string;
  created_by: string | null;
  revoked_at: string | null;
  /** ISO instant after which the key is refused; null: never. */
  expires_at: string | null;
  /** The hash of the secret the last rotation replaced, accepted until `previous_key_expires_at`. */
  previous_key_hash: string | null;
  previous_key_expires_at: string | null;
  /** JSON text of the key's MCP access rule; null: every server of its workspace. */
  mcp_access: string | null;
  /** JSON text of the key's run limits (`records/run-limits.ts`); null: none. */
  run_limits: string | null;
}

/**
 * One metadata pair of a log, so `metadata key=value` filters are plain indexed SQL
 * instead of dialect-specific JSON functions.
 */
export interface LogMetadataTable {
  log_id: string;
  workspace_id: string;
  key: string;
  value: string;
}

/**
 * Columns every control-plane table carries: the scope, and the gateway key ids that created
 * and last changed the row (null for the operator's admin key).
 */
export interface OwnedColumns {
  organisation_id: string;
  workspace_id: string;
  owner_id: string | null;
  updated_by: string | null;
}

/** A config's identity and current state; its bodies live in `config_versions`. */
export interface ConfigsTable extends OwnedColumns {
  id: string;
  /** Unique across the store. */
  slug: string;
  name: string;
  /** 0/1; at most one 1 per workspace. */
  is_default: number;
  /** `active`. */
  status: string;
  created_at: string;
  last_updated_at: string;
}

/** One immutable version of a config; `(config_id, version_number)` is unique. */
export interface ConfigVersionsTable extends OwnedColumns {
  version_id: string;
  config_id: string;
  version_number: number;
  name: string;
  /** The config body, JSON text. */
  config: string;
  created_at: string;
}

/** Stored upstream credentials; the key itself only as AES-256-GCM ciphertext. */
export interface VirtualKeysTable extends OwnedColumns, KeyLimitColumns {
  id: string;
  /** Unique across the store. */
  slug: string;
  name: string;
  provider: string;
  encrypted_key: string;
  key_hint: string;
  upstream_organization: string | null;
  upstream_project: string | null;
  custom_host: string | null;
  /** Provider credential fields as JSON, secret values sealed (`{"$sealed": …}`); null for none. */
  credential_fields: string | null;
  created_at: string;
  updated_at: string;
}

/** A prompt template's identity and the version it publishes. */
export interface PromptsTable extends OwnedColumns {
  id: string;
  name: string;
  default_version: number;
  created_at: string;
  updated_at: string;
}

/** One immutable version of a prompt; `(prompt_id, version_number)` is unique. */
export interface PromptVersionsTable extends OwnedColumns {
  version_id: string;
  prompt_id: string;
  version_number: number;
  model: string;
  provider: string | null;
  virtual_key: string | null;
  /** JSON array text of `{role, content}`. */
  messages: string;
  /** JSON object text. */
  hyperparameters: string;
  /** JSON array text of variable names. */
  variables: string;
  created_at: string;
  created_by: string | null;
}

/** A label of a prompt on one of its versions; `(prompt_id, label)` is the key. `production` equals `prompts.default_version`. */
export interface PromptLabelsTable {
  prompt_id: string;
  label: string;
  version_number: number;
  workspace_id: string;
  updated_by: string | null;
  updated_at: string;
}

/** A named set of guardrail checks and what to do when one fails. */
export interface GuardrailsTable extends OwnedColumns {
  id: string;
  /** Unique across the store. */
  slug: string;
  name: string;
  /** JSON array text of `{type, params}`. */
  checks: string;
  /** JSON object text, `{deny: boolean}`. */
  action: string;
  created_at: string;
  updated_at: string;
}

/** Scores attached to a trace (`store/feedback-repository.ts`); `owner_id` is the key that wrote one. */
export interface FeedbackTable extends OwnedColumns {
  /** UUIDv7. */
  id: string;
  trace_id: string;
  value: number;
  weight: number;
  /** JSON object text of string values. */
  metadata: string;
  created_at: string;
}

/** Responses answers kept for providers reached through chat (`store/stored-responses-repository.ts`). JSON as text. */
export interface StoredResponsesTable {
  workspace_id: string;
  id: string;
  response: string;
  conversation: string;
  created_at: string;
}

/** Answers of the semantic cache with their embeddings (`store/semantic-cache-repository.ts`); times in epoch ms. */
export interface SemanticCacheEntriesTable {
  /** The entry's exact cache key. */
  id: string;
  workspace_id: string;
  /** Which nearest-neighbour index holds it: workspace, namespace, model and embedding target, hashed. */
  partition: string;
  /** The hash of the request without its last user turn: it must match exactly. */
  scope: string;
  /** The embedding, base64 of little-endian float32. */
  vector: string;
  /** The cached answer as JSON text. */
  answer: string;
  log_id: string | null;
  created_at: number;
  expires_at: number;
}

/** Remote MCP servers (`store/mcp-servers-repository.ts`); secrets are sealed JSON text. */
export interface McpServersTable extends OwnedColumns {
  id: string;
  /** Unique per workspace. */
  label: string;
  url: string;
  description: string | null;
  /** `{"$sealed": …}` text, or null. */
  authorization: string | null;
  /** JSON object text of sealed header values. */
  headers: string;
  /** JSON array text, or null for every tool. */
  allowed_tools: string | null;
  /** JSON text of the approval policy. */
  require_approval: string;
  /** What one tool call costs, counted against the caller's budget; null: nothing. */
  call_price_usd: number | null;
  /** JSON object text of per-tool prices, or null. */
  tool_prices: string | null;
  /** JSON array texts of guardrail slugs run on tool arguments and on results, or null. */
  input_guardrails: string | null;
  output_guardrails: string | null;
  created_at: string;
  updated_at: string;
}
