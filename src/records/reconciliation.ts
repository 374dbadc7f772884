import type { SealedSecret } from "../crypto/sealed-secret.ts";

/** The providers whose own cost and usage reports the gateway reads. */
export const RECONCILED_PROVIDERS = ["openai", "anthropic"] as const;
export type ReconciledProvider = (typeof RECONCILED_PROVIDERS)[number];

/**
 * How a virtual key's bill is read from its provider: a usage-reading credential (OpenAI's
 * organization admin key, Anthropic's Admin API key), sealed, and how the provider's rows are
 * matched to the key (a project, an API key id, a workspace).
 */
export interface ReconciliationSettingsRecord {
  virtualKeyId: string;
  organisationId: string;
  workspaceId: string;
  provider: ReconciledProvider;
  adminKey: SealedSecret;
  /** The reports' base URL; null: the provider's own. */
  baseUrl: string | null;
  /** OpenAI: the project the key belongs to. */
  projectId: string | null;
  /** The provider's id of the API key the virtual key holds. */
  apiKeyId: string | null;
  /** Anthropic: the workspace the key belongs to. */
  providerWorkspaceId: string | null;
  driftThresholdUsd: number;
  driftThresholdRatio: number;
  /** The last UTC day the daily run took this key (`YYYY-MM-DD`); null before the first. */
  lastDailyRun: string | null;
  updatedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One day and model of a key: what the gateway logged against what the provider reports. */
export interface ReconciliationRow {
  virtualKeyId: string;
  /** UTC day, `YYYY-MM-DD`. */
  date: string;
  /** The model, its date suffix removed (`gpt-4o-2024-08-06` reads `gpt-4o`). */
  model: string;
  gatewayCostUsd: number;
  gatewayInputTokens: number;
  gatewayOutputTokens: number;
  gatewayRequests: number;
  /** Null when the provider's report holds no cost for the row (tokens only). */
  providerCostUsd: number | null;
  providerInputTokens: number;
  providerOutputTokens: number;
  /** Provider cost less gateway cost (null without a provider cost). */
  driftUsd: number | null;
  /** The drift over the larger of the two costs; null without a provider cost or any cost. */
  driftRatio: number | null;
  /** Past both of the key's thresholds. */
  drifted: boolean;
  checkedAt: string;
}
