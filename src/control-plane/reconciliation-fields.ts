import { GatewayError } from "../errors.ts";
import type { ReconciliationSettings, ReconciliationSettingsRequest } from "../generated/schemas.gen.ts";
import { MASKED_SECRET, sealSecret } from "../crypto/sealed-secret.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import { RECONCILED_PROVIDERS, type ReconciledProvider, type ReconciliationSettingsRecord } from "../records/reconciliation.ts";
import { MAX_HOST_CHARS } from "./stored-limits.ts";

/** A row drifts past these unless the key's settings say otherwise. */
export const DEFAULT_DRIFT_THRESHOLD_USD = 1;
export const DEFAULT_DRIFT_THRESHOLD_RATIO = 0.05;

/** The provider a key's bill is read from; a key on any other provider is a 400 naming `slug`. */
export function reconciledProvider(provider: string): ReconciledProvider {
  if ((RECONCILED_PROVIDERS as readonly string[]).includes(provider)) return provider as ReconciledProvider;
  throw new GatewayError("invalid_request", `Only a virtual key on openai or anthropic is reconciled with its provider's reports; this one is on ${provider}.`, { param: "slug" });
}

/**
 * The settings to store from a `PUT`: the credential sealed (`********` keeps the stored one,
 * which a first `PUT` has none of), the base URL checked by the custom-host guard. Throws
 * GatewayError (400 naming the field).
 */
export async function storedReconciliationSettings(
  body: ReconciliationSettingsRequest,
  current: ReconciliationSettingsRecord | undefined,
  deps: { secrets: SecretBox; checkCustomHost: CheckCustomHost },
): Promise<Pick<ReconciliationSettingsRecord, "adminKey" | "baseUrl" | "projectId" | "apiKeyId" | "providerWorkspaceId" | "driftThresholdUsd" | "driftThresholdRatio">> {
  let adminKey = current?.adminKey;
  if (body.admin_key !== undefined && body.admin_key !== MASKED_SECRET) adminKey = sealSecret(body.admin_key, deps.secrets);
  if (!adminKey) throw new GatewayError("invalid_request", "admin_key is needed: the provider's usage-reading key (OpenAI organization admin key, Anthropic Admin API key).", { param: "admin_key" });
  const baseUrl = body.base_url === undefined ? (current?.baseUrl ?? null) : body.base_url;
  if (baseUrl !== null) {
    if (baseUrl.length > MAX_HOST_CHARS) throw new GatewayError("invalid_request", `base_url is longer than ${MAX_HOST_CHARS} characters.`, { param: "base_url" });
    const checked = await deps.checkCustomHost(baseUrl, "base_url");
    if (!checked.ok) throw new GatewayError(checked.error.status === 400 ? checked.error.code : "invalid_request", checked.error.message, { param: "base_url" });
  }
  const kept = <T>(value: T | undefined, stored: T) => (value === undefined ? stored : value);
  return {
    adminKey,
    baseUrl,
    projectId: kept(body.project_id, current?.projectId ?? null),
    apiKeyId: kept(body.api_key_id, current?.apiKeyId ?? null),
    providerWorkspaceId: kept(body.workspace_id, current?.providerWorkspaceId ?? null),
    driftThresholdUsd: kept(body.drift_threshold_usd, current?.driftThresholdUsd ?? DEFAULT_DRIFT_THRESHOLD_USD),
    driftThresholdRatio: kept(body.drift_threshold_ratio, current?.driftThresholdRatio ?? DEFAULT_DRIFT_THRESHOLD_RATIO),
  };
}

/** The settings as the API shows them: the credential masked. */
export function reconciliationSettingsView(record: ReconciliationSettingsRecord, slug: string): ReconciliationSettings {
  return {
    object: "reconciliation_settings",
    virtual_key: slug,
    provider: record.provider,
    admin_key: MASKED_SECRET,
    base_url: record.baseUrl,
    project_id: record.projectId,
    api_key_id: record.apiKeyId,
    workspace_id: record.providerWorkspaceId,
    drift_threshold_usd: record.driftThresholdUsd,
    drift_threshold_ratio: record.driftThresholdRatio,
    last_daily_run: record.lastDailyRun,
    updated_at: record.updatedAt,
  };
}

/** How the provider's rows were matched to the key, in words, for a reconciliation's answer and the docs. */
export function matchedBy(record: ReconciliationSettingsRecord): string {
  if (record.provider === "openai") {
    const scope = record.projectId ? `project ${record.projectId}` : "the whole organization";
    const key = record.apiKeyId ? `; tokens of API key ${record.apiKeyId} alone (OpenAI's cost report has no API key: costs are the ${record.projectId ? "project's" : "organization's"})` : "";
    return `costs and tokens of ${scope}${key}; costs per model from each cost line item's model`;
  }
  const scope = record.providerWorkspaceId ? `workspace ${record.providerWorkspaceId}` : "the whole organization";
  const key = record.apiKeyId ? `; tokens of API key ${record.apiKeyId} alone (Anthropic's cost report has no API key: costs are the ${record.providerWorkspaceId ? "workspace's" : "organization's"})` : "";
  return `costs and tokens of ${scope}${key}; costs per model from the cost report's description`;
}
