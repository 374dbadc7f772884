import { deleteMcpServerRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { mcpServerSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteMcpServer(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteMcpServerRoute, async (c) => {
    const auth = c.get("auth");
    const { label } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "mcp_server.deleted", mcpServerSubject, async (tx) => {
      const before = await tx.mcpServers.getByLabel(auth.workspaceId, label);
      return before && (await tx.mcpServers.delete(auth.workspaceId, label)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No MCP server ${label} in this workspace.`, { param: "label" });
    deps.controlPlane.forget("mcp-server", auth.workspaceId, label);
    deps.controlPlane.forget("mcp-server-labels", auth.workspaceId, "*");
    return c.json({ id: label, object: "mcp_server", deleted: true }, 200);
  });
}
