import { getApiKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { apiKeyView } from "../control-plane/api-key-view.ts";
import { GatewayError } from "../errors.ts";

export function registerGetApiKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getApiKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const record = await deps.store.apiKeys.getById(id, auth.organisationId, auth.organisationAdmin ? null : auth.workspaceId);
    if (!record) throw new GatewayError("not_found", `No gateway key ${id} in this workspace.`, { param: "id" });
    return c.json({ ...apiKeyView(record), ...(await deps.spend.keyStatus(record.workspaceId, "api_key", record.id)) }, 200);
  });
}
