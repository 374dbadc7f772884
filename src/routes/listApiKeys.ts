import { listApiKeysRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { apiKeyView, targetWorkspace } from "../control-plane/api-key-view.ts";

export function registerListApiKeys(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listApiKeysRoute, async (c) => {
    const auth = c.get("auth");
    const workspaceId = targetWorkspace(auth, c.req.valid("query").workspace_id);
    const records = await deps.store.apiKeys.listByWorkspace(auth.organisationId, workspaceId);
    const data = await Promise.all(records.map(async (record) => ({ ...apiKeyView(record), ...(await deps.spend.keyStatus(record.workspaceId, "api_key", record.id)) })));
    return c.json({ object: "list" as const, data }, 200);
  });
}
