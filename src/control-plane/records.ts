/**
 * Stored control-plane resources, as the repositories return them. Every record belongs to
 * one organisation and one workspace; `ownerId`/`updatedBy` are the gateway key ids that
 * created and last changed it (the fixed OPERATOR_KEY_ID for GATEWAY_ADMIN_KEY). The columns
 * are nullable; views show a null as OPERATOR_KEY_ID.
 */
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

export const BUDGET_PERIODS = ["none", "weekly", "monthly"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

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
  budget: { creditLimitUsd: number; period: BudgetPeriod } | null;
  rateLimit: { requestsPerMinute: number | null; tokensPerMinute: number | null } | null;
  createdAt: string;
  updatedAt: string;
}

export interface PromptRecord extends Ownership {
  id: string;
  name: string;
  /** The published version number. */
  defaultVersion: number;
  createdAt: string;
  updatedAt: string;
  versions: PromptVersionRecord[];
}

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
  action: { deny: boolean };
  createdAt: string;
  updatedAt: string;
}
