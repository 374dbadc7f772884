/**
 * Stored control-plane resources, as the repositories return them. Every record belongs to
 * one organisation and one workspace; `ownerId`/`updatedBy` are the gateway key ids that
 * created and last changed it (the fixed OPERATOR_KEY_ID for GATEWAY_ADMIN_KEY). The columns
 * are nullable; views show a null as OPERATOR_KEY_ID.
 */
import type { SealedSecret } from "../crypto/sealed-secret.ts";

export interface Ownership {
  organisationId: string;
  workspaceId: string;
  ownerId: string | null;
  updatedBy: string | null;
}

export interface ConfigRecord extends Ownership {
  /** Stable id of the config (UUID), the same across its versions. */
  id: string;
  /** `pc-<words>-<hex>`, unique. */
  slug: string;
  name: string;
  isDefault: boolean;
  status: "active";
  createdAt: string;
  lastUpdatedAt: string;
  /** The newest version. */
  latest: ConfigVersionRecord;
}

export interface ConfigVersionRecord {
  /** UUID of this version. */
  versionId: string;
  configId: string;
  versionNumber: number;
  name: string;
  /** The config body as JSON text, exactly as stored. */
  config: string;
  createdAt: string;
  updatedBy: string | null;
}

export const BUDGET_PERIODS = ["none", "daily", "weekly", "monthly"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** A hard spending limit of a key (virtual or gateway), reset at each UTC period start (`spend/periods.ts`). */
export interface KeyBudget {
  creditLimitUsd: number;
  period: BudgetPeriod;
  /** A fraction 0..1 of the limit: crossing it logs a warning and answers carry `x-gateway-budget-alert`. */
  alertThreshold: number | null;
}

/** Requests and tokens a key may use per fixed UTC window; null: no limit on that window. */
export interface KeyRateLimit {
  requestsPerMinute: number | null;
  requestsPerHour: number | null;
  requestsPerDay: number | null;
  tokensPerMinute: number | null;
  tokensPerHour: number | null;
  tokensPerDay: number | null;
}

/** A key's limits as the spend layer reads them; both null: the key is not metered at all. */
export interface KeyLimits {
  budget: KeyBudget | null;
  rateLimit: KeyRateLimit | null;
}

export interface VirtualKeyRecord extends Ownership {
  id: string;
  /** Unique; used as `@<slug>` or in `x-gateway-virtual-key`. */
  slug: string;
  name: string;
  provider: string;
  /** AES-256-GCM ciphertext of the upstream key (see crypto/secret-box.ts); never returned by a route. */
  encryptedKey: string;
  /** Last four characters of the upstream key, for a masked display. */
  keyHint: string;
  upstreamOrganization: string | null;
  upstreamProject: string | null;
  customHost: string | null;
  /** Provider credential fields (`Provider.credentialFields`) by name; secret ones sealed. */
  fields: StoredCredentialFields;
  budget: KeyBudget | null;
  rateLimit: KeyRateLimit | null;
  createdAt: string;
  updatedAt: string;
}

/** Credential fields as stored: plain text, or a sealed secret for fields marked secret. */
export type StoredCredentialFields = Readonly<Record<string, string | SealedSecret>>;

export interface PromptRecord extends Ownership {
  id: string;
  name: string;
  /** The published version number: the version labelled `production`. */
  defaultVersion: number;
  createdAt: string;
  updatedAt: string;
  versions: PromptVersionRecord[];
  /** Label → version number; `production` is always there (it is `defaultVersion`). */
  labels: Readonly<Record<string, number>>;
}

/** The label a prompt run gets when it names no version or label: the published version. */
export const PRODUCTION_LABEL = "production";

export interface PromptMessage {
  role: "system" | "developer" | "user" | "assistant";
  /** A Mustache template. */
  content: string;
}

export interface PromptVersionRecord {
  versionId: string;
  promptId: string;
  versionNumber: number;
  model: string;
  /** A catalogue provider name; null when a virtual key supplies the provider. */
  provider: string | null;
  /** A virtual key slug; null when `provider` is set. */
  virtualKey: string | null;
  messages: PromptMessage[];
  hyperparameters: Record<string, unknown>;
  /** Variable names found in the template, sorted. */
  variables: string[];
  createdAt: string;
  createdBy: string | null;
}

export interface GuardrailCheckSpec {
  type: string;
  params: Record<string, unknown>;
}

export interface GuardrailRecord extends Ownership {
  id: string;
  /** `pg-<words>-<hex>`, unique. */
  slug: string;
  name: string;
  checks: GuardrailCheckSpec[];
  /** `redact`: a failed `pii` check's findings are replaced where the gateway rewrites the text (MCP tool calls). */
  action: { deny: boolean; redact?: boolean };
  createdAt: string;
  updatedAt: string;
}

/** Which tool calls of an MCP server wait for the client's approval (OpenAI's `require_approval`). */
export type McpApprovalPolicy = "always" | "never" | { always?: { tool_names?: string[] }; never?: { tool_names?: string[] } };

/** A remote MCP server stored for the workspace, named by `label` in a Responses `mcp` tool. */
export interface McpServerRecord extends Ownership {
  id: string;
  /** Unique in the workspace; `[A-Za-z0-9_-]{1,64}`. */
  label: string;
  url: string;
  description: string | null;
  /** The bearer token, sealed; null when none. */
  authorization: SealedSecret | null;
  /** Header values, sealed. */
  headers: Record<string, SealedSecret>;
  /** Null offers every tool the server lists. */
  allowedTools: string[] | null;
  requireApproval: McpApprovalPolicy;
  /** What one tool call through the MCP gateway costs (USD), counted against the caller's budget; null: nothing. */
  callPriceUsd: number | null;
  /** Per-tool prices that replace `callPriceUsd` for those tools; null: none. */
  toolPrices: Record<string, number> | null;
  /** Guardrail slugs the MCP gateway runs on a tool call's arguments, and on its result; null: none. */
  inputGuardrails: string[] | null;
  outputGuardrails: string[] | null;
  createdAt: string;
  updatedAt: string;
}
