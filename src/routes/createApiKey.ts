import { createApiKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { apiKeyView, targetWorkspace } from "../control-plane/api-key-view.ts";
import { displayPrefix, generateGatewayKeySecret, hashGatewayKey } from "../control-plane/gateway-key-service.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import type { ApiKeyRecord } from "../records/api-key.ts";
import { storedBudget, storedRateLimit } from "../control-plane/virtual-key-fields.ts";
import { storedExpiry } from "../control-plane/key-expiry.ts";
import { storedMcpAccess } from "../control-plane/mcp-access-fields.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { apiKeySubject } from "../audit/audit-subjects.ts";
import { limitedApiKey, syncKeyBudget } from "../control-plane/key-budgets.ts";
import { storedRunLimits } from "../control-plane/run-limit-fields.ts";

export function registerCreateApiKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createApiKeyRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const secret = generateGatewayKeySecret();
    const record: ApiKeyRecord = {
      id: uuidv4(),
      organisationId: auth.organisationId,
      workspaceId: targetWorkspace(auth, body.workspace_id),
      name: body.name,
      role: body.role,
      organisationAdmin: false,
      keyHash: hashGatewayKey(secret),
      keyPrefix: displayPrefix(secret),
      createdAt: isoNow(),
      createdBy: auth.keyId,
      revokedAt: null,
      expiresAt: body.expires_at === undefined ? null : storedExpiry(body.expires_at),
      previousKeyHash: null,
      previousKeyExpiresAt: null,
      budget: storedBudget(body.budget ?? null),
      rateLimit: storedRateLimit(body.rate_limit ?? null),
      mcpAccess: storedMcpAccess(body.mcp_access),
      runLimits: body.run_limits === undefined ? null : storedRunLimits(body.run_limits),
    };
    await auditedChange(c, deps.store, "api_key.created", apiKeySubject, async (tx) => {
      await tx.apiKeys.insert(record);
      await syncKeyBudget(tx, limitedApiKey(record), record, auth.keyId, record.createdAt);
      return { after: record };
    });
    if (record.budget || record.rateLimit) deps.controlPlane.forget("budgets", record.workspaceId, "*");
    return c.json({ ...apiKeyView(record), key: secret }, 201);
  });
}
