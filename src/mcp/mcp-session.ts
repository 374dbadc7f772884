/**
 * The gateway as an MCP client of one server, through the official TypeScript SDK: Streamable
 * HTTP first, then the older HTTP+SSE transport for servers that only speak it. Every request
 * goes through the gateway's pinned fetch (each connection to an address the custom-host guard
 * checked) with redirects refused, so the server's headers reach its own URL and nothing else.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { FetchLike } from "../net/upstream-call.ts";
import type { McpServerPlan } from "./server-plans.ts";

/** A tool as the server lists it (and as `mcp_list_tools` shows it). */
export interface McpTool {
  name: string;
  description: string | null;
  input_schema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
}

/** What a call returned: its text for the model, or the error the client sees in `mcp_call.error`. */
export type McpCallOutcome =
  | { ok: true; output: string }
  | { ok: false; error: { type: "mcp_tool_execution_error"; content: unknown[] } | { type: "mcp_protocol_error"; code: number; message: string }; text: string };

export interface McpSession {
  readonly label: string;
  /** The tools listed, filtered by the plan's allowed tools. */
  readonly tools: readonly McpTool[];
  call(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpCallOutcome>;
  close(): Promise<void>;
}

export interface SessionOptions {
  fetch: FetchLike;
  signal: AbortSignal;
  timeoutMs: number;
}

const CLIENT_INFO = { name: "ai-gateway", version: "1" };

/** The SDK, loaded with the first MCP request: a gateway whose requests use no MCP tool never holds it in memory. */
let sdk: Promise<{
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
}> | null = null;

function loadSdk() {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
  ]).then(([client, streamable, sse]) => ({ Client: client.Client, StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport, SSEClientTransport: sse.SSEClientTransport }));
  return sdk;
}

/** Connects and lists the server's tools; the error (a short message without the server's secrets) when it cannot. Never throws. */
export async function openMcpSession(plan: McpServerPlan, options: SessionOptions): Promise<{ ok: true; session: McpSession } | { ok: false; error: string }> {
  const { Client, StreamableHTTPClientTransport, SSEClientTransport } = await loadSdk();
  const url = new URL(plan.url);
  const fetch = noRedirects(options.fetch);
  const requestInit: RequestInit = { headers: { ...plan.headers } };
  const attempts: Array<() => Transport> = [
    () => new StreamableHTTPClientTransport(url, { fetch, requestInit }),
    () => new SSEClientTransport(url, { fetch, requestInit }),
  ];
  let lastError: unknown = null;
  for (const transport of attempts) {
    if (options.signal.aborted) break;
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(transport(), { signal: options.signal, timeout: options.timeoutMs });
      const tools = await listAllTools(client, options);
      return { ok: true, session: sessionOf(plan, client, tools) };
    } catch (error) {
      lastError = error;
      await client.close().catch(() => undefined);
    }
  }
  return { ok: false, error: describe(lastError, plan) };
}

async function listAllTools(client: Client, options: SessionOptions): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  // A server that pages its tools: a bounded number of pages.
  for (let page = 0; page < 20; page += 1) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal: options.signal, timeout: options.timeoutMs });
    for (const tool of listed.tools) {
      tools.push({
        name: tool.name,
        description: tool.description ?? null,
        input_schema: tool.inputSchema as Record<string, unknown>,
        annotations: (tool.annotations as Record<string, unknown> | undefined) ?? null,
      });
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

function sessionOf(plan: McpServerPlan, client: Client, listed: McpTool[]): McpSession {
  const tools = plan.allowedTools === null ? listed : listed.filter((tool) => plan.allowedTools!.has(tool.name));
  return {
    label: plan.label,
    tools,
    async call(name, args, options) {
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs });
        const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
        const text = contentText(content, result.structuredContent);
        if (result.isError === true) return { ok: false, error: { type: "mcp_tool_execution_error", content }, text };
        return { ok: true, output: text };
      } catch (error) {
        const code = typeof (error as { code?: unknown }).code === "number" ? ((error as { code: number }).code) : -32603;
        const message = describe(error, plan);
        return { ok: false, error: { type: "mcp_protocol_error", code, message }, text: message };
      }
    },
    close: () => client.close().catch(() => undefined),
  };
}

/** A result's content as the model reads it: text parts joined, anything else as JSON. */
function contentText(content: unknown[], structured: unknown): string {
  if (content.length === 0 && structured !== undefined) return JSON.stringify(structured);
  return content
    .map((part) => {
      const typed = part as { type?: unknown; text?: unknown };
      return typed.type === "text" && typeof typed.text === "string" ? typed.text : JSON.stringify(part);
    })
    .join("\n");
}

/** The gateway's fetch with redirects refused: a redirect could carry the headers elsewhere. */
function noRedirects(fetch: FetchLike): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return fetch(url, { ...init, redirect: "manual" });
  };
}

/** A short message: no URL (a query could hold a token), no header value. */
function describe(error: unknown, plan: McpServerPlan): string {
  let text = error instanceof Error ? error.message : String(error);
  text = text.split(plan.url).join(plan.label);
  for (const value of Object.values(plan.headers)) if (value.length >= 4) text = text.split(value).join("[redacted]");
  text = text.replace(/https?:\/\/\S+/g, "[url]");
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
