import { listMcpServersRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpServerView } from "../control-plane/views.ts";

export function registerListMcpServers(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listMcpServersRoute, async (c) => {
    const auth = c.get("auth");
    const data = (await deps.store.mcpServers.list(auth.workspaceId)).map(mcpServerView);
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
