import { createMcpServerRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { mcpServerSubject } from "../audit/audit-subjects.ts";
import { mcpServerView } from "../control-plane/views.ts";
import { checkedServerUrl, checkMcpHeaders } from "../control-plane/mcp-server-fields.ts";
import { sealMcpSecrets } from "../control-plane/mcp-server-secrets.ts";
import { GatewayError } from "../errors.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import type { NewMcpServer } from "../store/control-plane-repositories.ts";

export function registerCreateMcpServer(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createMcpServerRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    checkMcpHeaders(body.headers);
    const url = await checkedServerUrl(body.server_url, deps.checkCustomHost);
    const sealed = sealMcpSecrets({ authorization: body.authorization, headers: body.headers }, deps.secrets, null, url);
    const server: NewMcpServer = {
      id: uuidv4(),
      label: body.server_label,
      url,
      description: body.server_description ?? null,
      authorization: sealed.authorization ?? null,
      headers: sealed.headers ?? {},
      allowedTools: body.allowed_tools ?? null,
      requireApproval: body.require_approval ?? "always",
      callPriceUsd: body.call_price_usd ?? null,
      toolPrices: body.tool_prices ?? null,
      inputGuardrails: body.input_guardrails ?? null,
      outputGuardrails: body.output_guardrails ?? null,
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: isoNow(),
    };
    const changed = await auditedChange(c, deps.store, "mcp_server.created", mcpServerSubject, async (tx) => {
      const created = await tx.mcpServers.create(server);
      return created && { after: created };
    });
    if (!changed?.after) {
      throw new GatewayError("invalid_request", `The workspace already has an MCP server labelled ${body.server_label}.`, { param: "server_label" });
    }
    // A request may have looked the label up before it existed.
    deps.controlPlane.forget("mcp-server", auth.workspaceId, server.label);
    deps.controlPlane.forget("mcp-server-labels", auth.workspaceId, "*");
    return c.json(mcpServerView(changed.after), 201);
  });
}
