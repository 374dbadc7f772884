import { deleteApiKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { isoNow } from "../core/ids.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteApiKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteApiKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const scope = auth.organisationAdmin ? null : auth.workspaceId;
    const revoked = await deps.store.apiKeys.revoke(id, auth.organisationId, scope, isoNow());
    if (!revoked) throw new GatewayError("not_found", `No gateway key ${id} in this workspace.`, { param: "id" });
    deps.keys.forget(revoked.keyHash);
    return c.json({ id, object: "api_key", deleted: true }, 200);
  });
}
