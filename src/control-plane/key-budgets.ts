import { uuidv4 } from "../lib/ids.ts";
import type { KeyBudget, KeyRateLimit } from "../records/control-plane.ts";
import type { ControlPlaneStore } from "../store/open-store.ts";
import { keyPeriodSpec, type BudgetScope } from "../records/budget.ts";

/** The key whose own limits are kept as a budget of its scope. */
export interface LimitedKey {
  kind: "api_key" | "virtual_key";
  id: string;
  organisationId: string;
  workspaceId: string;
  /** A virtual key's slug; a gateway key's name. */
  name: string;
}

/** A virtual key as the owner of its own budget. */
export function limitedVirtualKey(key: { id: string; slug: string; organisationId: string; workspaceId: string }): LimitedKey {
  return { kind: "virtual_key", id: key.id, name: key.slug, organisationId: key.organisationId, workspaceId: key.workspaceId };
}

/** A gateway key as the owner of its own budget. */
export function limitedApiKey(key: { id: string; name: string; organisationId: string; workspaceId: string }): LimitedKey {
  return { kind: "api_key", id: key.id, name: key.name, organisationId: key.organisationId, workspaceId: key.workspaceId };
}

/**
 * Makes the budget a key's own `budget` and `rate_limit` fields set (`source` `key`) match
 * them: created, changed, or deleted when both are null. Runs inside the key's audited write
 * (`tx`), so the key and its budget change together. The caller forgets the workspace's budgets
 * in the control-plane cache afterwards.
 */
export async function syncKeyBudget(tx: ControlPlaneStore, key: LimitedKey, limits: { budget: KeyBudget | null; rateLimit: KeyRateLimit | null }, by: string | null, at: string): Promise<void> {
  const current = await tx.budgets.keyBudget(key.workspaceId, key.kind, key.id);
  if (!limits.budget && !limits.rateLimit) {
    if (current) await tx.budgets.delete(key.workspaceId, current.id);
    return;
  }
  const fields = {
    limitUsd: limits.budget?.creditLimitUsd ?? null,
    period: keyPeriodSpec(limits.budget?.period ?? "none"),
    alertThresholds: limits.budget && limits.budget.alertThreshold !== null && limits.budget.alertThreshold > 0 ? [limits.budget.alertThreshold] : [],
    rateLimit: limits.rateLimit,
  };
  if (current) {
    await tx.budgets.update(key.workspaceId, current.id, { ...fields, updatedBy: by, at });
    return;
  }
  const scope: BudgetScope = key.kind === "api_key" ? { type: "api_key", apiKeyId: key.id } : { type: "virtual_key", virtualKeyId: key.id, virtualKeySlug: key.name };
  await tx.budgets.create({
    id: uuidv4(),
    name: key.kind === "api_key" ? `gateway key ${key.name}` : `virtual key ${key.name}`,
    scope,
    ...fields,
    source: "key",
    organisationId: key.organisationId,
    workspaceId: key.workspaceId,
    ownerId: by,
    updatedBy: by,
    createdAt: at,
  });
}
