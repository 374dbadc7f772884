import { getMcpServerRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpServerView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerGetMcpServer(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getMcpServerRoute, async (c) => {
    const auth = c.get("auth");
    const { label } = c.req.valid("param");
    const server = await deps.store.mcpServers.getByLabel(auth.workspaceId, label);
    if (!server) throw new GatewayError("not_found", `No MCP server ${label} in this workspace.`, { param: "label" });
    return c.json(mcpServerView(server), 200);
  });
}
