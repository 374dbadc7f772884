import { rotateApiKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { apiKeyView } from "../control-plane/api-key-view.ts";
import { displayPrefix, generateGatewayKeySecret, hashGatewayKey } from "../control-plane/gateway-key-service.ts";
import { DEFAULT_GRACE_PERIOD_SECONDS } from "../control-plane/key-expiry.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { apiKeySubject } from "../audit/audit-subjects.ts";
import { isoNow } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";

/**
 * A new secret for the same key (same id, so budgets, rate limits, logs and analytics go on);
 * the replaced secret works until the grace period ends. Any secret an earlier rotation left in
 * its grace period is replaced, and stops at once.
 */
export function registerRotateApiKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(rotateApiKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const grace = c.req.valid("json").grace_period_seconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
    const scope = auth.organisationAdmin ? null : auth.workspaceId;
    const secret = generateGatewayKeySecret();
    const rotation = {
      keyHash: hashGatewayKey(secret),
      keyPrefix: displayPrefix(secret),
      previousKeyExpiresAt: grace === 0 ? null : isoNow(Date.now() + grace * 1000),
    };
    const changed = await auditedChange(c, deps.store, "api_key.rotated", apiKeySubject, async (tx) => {
      // Locked, so `before` holds the secrets this rotation replaces even when rotations race: they are the ones to forget.
      const before = await tx.apiKeys.getForChange(id, auth.organisationId, scope);
      if (!before) return undefined;
      if (before.revokedAt !== null) throw new GatewayError("invalid_request", `Gateway key ${id} is revoked: it cannot be rotated.`, { param: "id" });
      // A new secret for an expired key would be refused at once: say so rather than hand it out.
      if (before.expiresAt !== null && Date.parse(before.expiresAt) <= Date.now()) {
        throw new GatewayError("invalid_request", `Gateway key ${id} expired at ${before.expiresAt}: move its expires_at first, then rotate it.`, { param: "id" });
      }
      return { before, after: await tx.apiKeys.rotate(id, auth.organisationId, scope, rotation) };
    });
    const rotated = changed?.after;
    if (!changed?.before || !rotated) throw new GatewayError("not_found", `No gateway key ${id} in this workspace.`, { param: "id" });
    // Every replica drops what it cached under the replaced secrets: the old one's grace period
    // (or its refusal) and the one an earlier rotation left behind take effect at once.
    deps.keys.forget(changed.before.keyHash);
    if (changed.before.previousKeyHash !== null) deps.keys.forget(changed.before.previousKeyHash);
    return c.json({ ...apiKeyView(rotated), key: secret }, 200);
  });
}
