import { updateApiKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { apiKeyView } from "../control-plane/api-key-view.ts";
import { storedBudget, storedRateLimit } from "../control-plane/virtual-key-fields.ts";
import { GatewayError } from "../errors.ts";
import type { ApiKeyChange } from "../store/api-keys-repository.ts";
import { storedExpiry } from "../control-plane/key-expiry.ts";
import { storedMcpAccess } from "../control-plane/mcp-access-fields.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { apiKeySubject } from "../audit/audit-subjects.ts";
import { limitedApiKey, syncKeyBudget } from "../control-plane/key-budgets.ts";
import { storedRunLimits } from "../control-plane/run-limit-fields.ts";
import { isoNow } from "../lib/ids.ts";

export function registerUpdateApiKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateApiKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const change: ApiKeyChange = {};
    if (body.name !== undefined) change.name = body.name;
    if (body.budget !== undefined) change.budget = storedBudget(body.budget);
    if (body.rate_limit !== undefined) change.rateLimit = storedRateLimit(body.rate_limit);
    if (body.expires_at !== undefined) change.expiresAt = body.expires_at === null ? null : storedExpiry(body.expires_at);
    if (body.mcp_access !== undefined) change.mcpAccess = storedMcpAccess(body.mcp_access);
    if (body.run_limits !== undefined) change.runLimits = body.run_limits === null ? null : storedRunLimits(body.run_limits);
    const scope = auth.organisationAdmin ? null : auth.workspaceId;
    const changed = await auditedChange(c, deps.store, "api_key.updated", apiKeySubject, async (tx) => {
      const before = await tx.apiKeys.getById(id, auth.organisationId, scope);
      const after = before && (await tx.apiKeys.update(id, auth.organisationId, scope, change));
      if (after && (change.budget !== undefined || change.rateLimit !== undefined)) await syncKeyBudget(tx, limitedApiKey(after), after, auth.keyId, isoNow());
      return before && { before, after };
    });
    const updated = changed?.after;
    if (!updated) throw new GatewayError("not_found", `No gateway key ${id} in this workspace.`, { param: "id" });
    // The key's limits and expiry are cached with it: forgetting it applies them from the next request (and, through Redis, on every replica).
    deps.keys.forget(updated.keyHash);
    if (updated.previousKeyHash !== null) deps.keys.forget(updated.previousKeyHash);
    if (change.budget !== undefined || change.rateLimit !== undefined) deps.controlPlane.forget("budgets", updated.workspaceId, "*");
    return c.json({ ...apiKeyView(updated), ...(await deps.spend.keyStatus(updated.workspaceId, "api_key", updated.id)) }, 200);
  });
}
