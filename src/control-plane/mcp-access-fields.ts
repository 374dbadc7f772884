import { GatewayError } from "../errors.ts";
import type { McpAccessRule } from "../records/api-key.ts";
import type { McpAccessRule as McpAccessRuleBody } from "../generated/schemas.gen.ts";

const LABEL = /^[A-Za-z0-9_-]{1,64}$/;

/** A key's MCP access rule as sent, checked and stored (`tools` absent reads as null: every tool). A 400 names the bad label. */
export function storedMcpAccess(body: McpAccessRuleBody | null | undefined): McpAccessRule | null {
  if (body === undefined || body === null) return null;
  const rule: McpAccessRule = { servers: null, callsPerMinute: body.calls_per_minute ?? null, callsPerMinutePerTool: body.calls_per_minute_per_tool ?? null };
  if (body.servers === undefined || body.servers === null) return rule;
  const servers: Record<string, { tools: string[] | null }> = {};
  for (const [label, server] of Object.entries(body.servers)) {
    if (!LABEL.test(label)) {
      throw new GatewayError("invalid_request", `mcp_access.servers names ${JSON.stringify(label.slice(0, 80))}: a server label is 1 to 64 letters, digits, _ or -.`, { param: "mcp_access.servers" });
    }
    servers[label] = { tools: server.tools ?? null };
  }
  return { ...rule, servers };
}
