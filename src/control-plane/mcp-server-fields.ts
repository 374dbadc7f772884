import { GatewayError } from "../errors.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the transport sets itself: a stored value would break the connection or its framing. */
const RESERVED = new Set(["host", "content-length", "content-type", "accept", "connection", "transfer-encoding", "mcp-session-id", "mcp-protocol-version"]);

/**
 * Refuses header names that are not tokens or that the transport owns, and values HTTP cannot
 * carry (a line break would split the request). Throws only GatewayError (400).
 */
export function checkMcpHeaders(headers: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    const param = `headers.${name.slice(0, 64)}`;
    const problem = mcpHeaderProblem(name, value);
    if (problem !== null) throw new GatewayError("invalid_request", `${param}: ${problem}`, { param });
  }
}

/**
 * What is wrong with one header an MCP server would be sent, or null: the rule a stored server's
 * headers are saved under, and a request's inline server's headers are sent under.
 */
export function mcpHeaderProblem(name: string, value: unknown): string | null {
  if (!HEADER_NAME.test(name)) return "not a valid header name.";
  if (RESERVED.has(name.toLowerCase())) return "the MCP transport sets this header itself.";
  if (typeof value !== "string") return "the value must be a string.";
  if (/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(value)) return "the value holds characters a header cannot carry.";
  return null;
}

/** The server URL as the custom-host guard allows it; its error names `server_url`. Throws only GatewayError. */
export async function checkedServerUrl(url: string, checkCustomHost: CheckCustomHost): Promise<string> {
  const checked = await checkCustomHost(url, "server_url");
  if (!checked.ok) throw checked.error;
  return url;
}
