import { deleteApiKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { isoNow } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { apiKeySubject } from "../audit/audit-subjects.ts";

export function registerDeleteApiKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteApiKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const scope = auth.organisationAdmin ? null : auth.workspaceId;
    const changed = await auditedChange(c, deps.store, "api_key.revoked", apiKeySubject, async (tx) => {
      const before = await tx.apiKeys.getById(id, auth.organisationId, scope);
      return before && { before, after: await tx.apiKeys.revoke(id, auth.organisationId, scope, isoNow()) };
    });
    const revoked = changed?.after;
    if (!revoked) throw new GatewayError("not_found", `No gateway key ${id} in this workspace.`, { param: "id" });
    // Both secrets (the current one, and the one a rotation replaced) stop at once, on every replica.
    deps.keys.forget(revoked.keyHash);
    if (revoked.previousKeyHash !== null) deps.keys.forget(revoked.previousKeyHash);
    return c.json({ id, object: "api_key", deleted: true }, 200);
  });
}
