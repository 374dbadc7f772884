import type { McpServerRecord } from "../../records/control-plane.ts";
import type { LogEntry } from "../../logging/log-entry.ts";
import type { FetchLike } from "../../net/upstream-call.ts";
import type { SharedRedis } from "../../shared-state/redis.ts";
import type { ToolGate } from "./call-scope.ts";
import { McpGateway } from "./mcp-gateway.ts";
import { ServerDirectory } from "./server-directory.ts";
import { sessionStore } from "./session-store.ts";

export interface McpGatewayParts {
  /** A stored server by label, through the control-plane cache. */
  server(workspaceId: string, label: string): Promise<McpServerRecord | undefined>;
  /** The workspace's labels, through the control-plane cache. */
  labels(workspaceId: string): Promise<string[]>;
  openHeaders(record: McpServerRecord): Record<string, string> | null;
  /** The custom-host guard's refusal of a URL, or null. */
  refusal(url: string): Promise<string | null>;
  fetch: FetchLike;
  redis: SharedRedis | null;
  toolGate: ToolGate;
  callTimeoutMs: number;
  maxMessageBytes: number;
  maxLoggedBodyBytes: number;
  log(entry: LogEntry): void;
  version: string;
}

/** The MCP gateway of a gateway's services. */
export function openMcpGateway(parts: McpGatewayParts): McpGateway {
  const directory = new ServerDirectory({ load: parts.server, labels: parts.labels, openHeaders: parts.openHeaders, refusal: parts.refusal });
  return new McpGateway({
    directory,
    sessions: sessionStore(parts.redis),
    fetch: parts.fetch,
    toolGate: parts.toolGate,
    callTimeoutMs: parts.callTimeoutMs,
    maxMessageBytes: parts.maxMessageBytes,
    maxLoggedBodyBytes: parts.maxLoggedBodyBytes,
    log: parts.log,
    version: parts.version,
  });
}
