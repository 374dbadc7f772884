import type { McpServerRecord } from "../../records/control-plane.ts";
import { mcpRedactor, type McpRedactor } from "../mcp-redaction.ts";
import type { UpstreamServer } from "./upstream-leg.ts";

/** A stored server as the MCP gateway uses it: reachable, its secrets opened for its own URL and kept out of what it answers. */
export interface GatewayServer {
  upstream: UpstreamServer;
  record: McpServerRecord;
  redactor: McpRedactor;
}

export interface ServerDirectoryDeps {
  /** The stored server by label, through the control-plane cache. */
  load(workspaceId: string, label: string): Promise<McpServerRecord | undefined>;
  /** The labels of the workspace's stored servers, through the control-plane cache. */
  labels(workspaceId: string): Promise<string[]>;
  /** The server's headers with its secrets opened; null when they no longer open (a rotated key). */
  openHeaders(record: McpServerRecord): Record<string, string> | null;
  /** The custom-host guard, asked again on every connection: null when the URL may be reached, else why not. */
  refusal(url: string): Promise<string | null>;
}

/** Why a server cannot be used: not stored, unreachable by the guard, or its secrets no longer open. */
export type Unavailable = { kind: "unknown" | "refused"; message: string };

/** The stored servers of a workspace as the MCP gateway reaches them. */
export class ServerDirectory {
  private readonly redactors = new WeakMap<McpServerRecord, McpRedactor>();

  constructor(private readonly deps: ServerDirectoryDeps) {}

  labels(workspaceId: string): Promise<string[]> {
    return this.deps.labels(workspaceId);
  }

  /** The server labelled `label` in the workspace, or why it cannot be used. Never throws. */
  async server(workspaceId: string, label: string): Promise<{ ok: true; server: GatewayServer } | { ok: false; unavailable: Unavailable }> {
    const record = await this.deps.load(workspaceId, label).catch(() => undefined);
    if (!record) return { ok: false, unavailable: { kind: "unknown", message: `No MCP server labelled ${label} is stored in this workspace.` } };
    const refusal = await this.deps.refusal(record.url);
    if (refusal !== null) return { ok: false, unavailable: { kind: "refused", message: `MCP server ${label}: ${refusal}` } };
    const headers = this.deps.openHeaders(record);
    if (headers === null) return { ok: false, unavailable: { kind: "refused", message: `The credentials stored for MCP server ${label} no longer open; save them again.` } };
    let redactor = this.redactors.get(record);
    if (!redactor) {
      redactor = mcpRedactor(record.url, headers);
      this.redactors.set(record, redactor);
    }
    return { ok: true, server: { upstream: { label, url: record.url, headers }, record, redactor } };
  }
}
