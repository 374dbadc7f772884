import { listVirtualKeysRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { virtualKeyView } from "../control-plane/views.ts";

export function registerListVirtualKeys(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listVirtualKeysRoute, async (c) => {
    const auth = c.get("auth");
    const records = await deps.store.virtualKeys.list(auth.workspaceId);
    const data = records.map(virtualKeyView);
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
