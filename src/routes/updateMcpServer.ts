import { updateMcpServerRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { mcpServerSubject } from "../audit/audit-subjects.ts";
import { mcpServerView } from "../control-plane/views.ts";
import { checkedServerUrl, checkMcpHeaders } from "../control-plane/mcp-server-fields.ts";
import { sealMcpSecrets } from "../control-plane/mcp-server-secrets.ts";
import { GatewayError } from "../errors.ts";
import { isoNow } from "../lib/ids.ts";
import type { McpServerChange } from "../store/control-plane-repositories.ts";

export function registerUpdateMcpServer(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateMcpServerRoute, async (c) => {
    const auth = c.get("auth");
    const { label } = c.req.valid("param");
    const body = c.req.valid("json");
    const notFound = () => new GatewayError("not_found", `No MCP server ${label} in this workspace.`, { param: "label" });
    checkMcpHeaders(body.headers);
    const url = body.server_url === undefined ? undefined : await checkedServerUrl(body.server_url, deps.checkCustomHost);
    const current = await deps.store.mcpServers.getByLabel(auth.workspaceId, label);
    if (!current) throw notFound();
    const sealed = sealMcpSecrets({ authorization: body.authorization, headers: body.headers }, deps.secrets, current, url);
    const change: McpServerChange = { updatedBy: auth.keyId, at: isoNow(), ...sealed };
    if (url !== undefined) change.url = url;
    if (body.server_description !== undefined) change.description = body.server_description;
    if (body.allowed_tools !== undefined) change.allowedTools = body.allowed_tools;
    if (body.require_approval !== undefined) change.requireApproval = body.require_approval;
    if (body.call_price_usd !== undefined) change.callPriceUsd = body.call_price_usd;
    if (body.tool_prices !== undefined) change.toolPrices = body.tool_prices;
    if (body.input_guardrails !== undefined) change.inputGuardrails = body.input_guardrails;
    if (body.output_guardrails !== undefined) change.outputGuardrails = body.output_guardrails;
    const changed = await auditedChange(c, deps.store, "mcp_server.updated", mcpServerSubject, async (tx) => {
      const before = await tx.mcpServers.getByLabel(auth.workspaceId, label);
      return before && { before, after: await tx.mcpServers.update(auth.workspaceId, label, change) };
    });
    if (!changed?.after) throw notFound();
    // Requests read servers through the cache: the change applies to the next request.
    deps.controlPlane.forget("mcp-server", auth.workspaceId, label);
    return c.json(mcpServerView(changed.after), 200);
  });
}
