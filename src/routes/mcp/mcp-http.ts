import type { Context } from "hono";
import type { GatewayEnv } from "../../app-env.ts";
import { parseMetadataHeader } from "../../middleware/log-requests.ts";
import type { McpHttpRequest } from "../../mcp/gateway/mcp-gateway.ts";
import { SESSION_HEADER } from "../../mcp/gateway/mcp-gateway.ts";

/** An MCP route's request as the MCP gateway takes it: the caller, the session, the trace and metadata for the log. */
export function mcpHttpRequest(c: Context<GatewayEnv>, label: string | null): McpHttpRequest {
  const auth = c.get("auth");
  const metadata = parseMetadataHeader(c.req.header("x-gateway-metadata"));
  return {
    caller: {
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      apiKeyId: auth.keyId,
      access: auth.mcpAccess ?? null,
      traceId: c.req.header("x-gateway-trace-id") || null,
      spanId: c.req.header("x-gateway-span-id") || null,
      parentSpanId: c.req.header("x-gateway-parent-span-id") || null,
      spanName: c.req.header("x-gateway-span-name") || null,
      metadata,
      user: metadata._user ?? null,
      runLimits: auth.runLimits ?? null,
    },
    label,
    sessionId: c.req.header(SESSION_HEADER) ?? null,
    acceptsStream: (c.req.header("accept") ?? "").includes("text/event-stream"),
    signal: c.req.raw.signal,
    path: c.req.path,
  };
}
