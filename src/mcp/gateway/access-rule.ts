/**
 * Which stored servers and tools a gateway key may reach through the MCP gateway. A key without
 * a rule may use every server of its workspace, each with the tools the server itself allows; a
 * rule names the servers a key may use and, per server, the tools (null: all the server allows).
 * A tool outside the rule is neither listed nor callable.
 */
import type { McpAccessRule } from "../../records/api-key.ts";

export interface ServerAccess {
  /** The tools the server's stored record allows (null: all it lists). */
  storedTools: readonly string[] | null;
}

/** Whether the key may use the server at all. */
export function mayUseServer(rule: McpAccessRule | null | undefined, label: string): boolean {
  return !rule || rule.servers === null || Object.hasOwn(rule.servers, label);
}

/** Whether the key may list and call `tool` on the server. */
export function mayUseTool(rule: McpAccessRule | null | undefined, label: string, tool: string, access: ServerAccess): boolean {
  if (access.storedTools !== null && !access.storedTools.includes(tool)) return false;
  if (!rule || rule.servers === null) return true;
  const server = rule.servers[label];
  if (!server) return false;
  return server.tools === null || server.tools.includes(tool);
}

/** What the refusal of a tool says: which rule keeps it out. */
export function toolRefusal(rule: McpAccessRule | null | undefined, label: string, tool: string, access: ServerAccess): string {
  if (access.storedTools !== null && !access.storedTools.includes(tool)) return `Tool ${tool} is not among the tools MCP server ${label} allows (its stored allowed_tools).`;
  return `Tool ${tool} of MCP server ${label} is outside this gateway key's MCP access rule (mcp_access).`;
}
