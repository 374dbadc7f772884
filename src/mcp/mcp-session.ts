/**
 * The gateway as an MCP client of one server, through the official TypeScript SDK: Streamable
 * HTTP first, then the older HTTP+SSE transport for servers that only speak it. Every request
 * goes through the session's wire (`mcp-wire.ts`: the pinned fetch, redirects refused, answers
 * cut as they are read); every step (connecting, each page of the listing, each call, closing)
 * is held to the call deadline and ended by the run's (`bounded-step.ts`); and the server's
 * secrets are redacted from all it answers (`mcp-redaction.ts`).
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { FetchLike } from "../net/upstream-call.ts";
import type { McpServerPlan } from "./server-plans.ts";
import { boundedStep } from "./bounded-step.ts";
import { capped } from "./capped-text.ts";
import { mcpRedactor, type McpRedactor } from "./mcp-redaction.ts";
import { mcpWire, type McpWire } from "./mcp-wire.ts";

/** A tool as the server lists it (and as `mcp_list_tools` shows it). */
export interface McpTool {
  name: string;
  description: string | null;
  input_schema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
}

/**
 * What a call returned: its text for the model (with `bytes`, its size before any cut, for
 * the note that says so), or the error the client sees in `mcp_call.error`.
 */
export type McpCallOutcome =
  | { ok: true; output: string; bytes: number }
  | { ok: false; error: { type: "mcp_tool_execution_error"; content: unknown[] } | { type: "mcp_protocol_error"; code: number; message: string }; text: string; bytes: number };

export interface McpSession {
  readonly label: string;
  /** The tools listed, filtered by the plan's allowed tools and cut to the listing bounds. */
  readonly tools: readonly McpTool[];
  /** Why the listing offers fewer tools than the server listed, when it does. */
  readonly note: string | null;
  call(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpCallOutcome>;
  close(): Promise<void>;
}

/** `GATEWAY_MCP_*`: what one session may take. */
export interface SessionLimits {
  /** Each step: connecting, a page of the listing, a call. */
  timeoutMs: number;
  /** A string of an answer longer than this is cut as it is read (a result is cut to it anyway). */
  maxResultBytes: number;
  /** One JSON-RPC message, once its strings are cut. */
  maxMessageBytes: number;
  /** The tools offered, and their size as JSON. */
  maxTools: number;
  maxToolsBytes: number;
}

export interface SessionOptions {
  fetch: FetchLike;
  /** The run's: aborted at its deadline or when the client leaves. */
  signal: AbortSignal;
  limits: SessionLimits;
}

/** A message is read for at most this many bytes, its long strings cut or not. */
const MAX_READ_BYTES = 256 * 1024 * 1024;
/** A server that pages its tools: a bounded number of pages. */
const MAX_PAGES = 20;

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

const ignore = (): void => undefined;

/**
 * Connects and lists the server's tools within the deadlines; the error (a short message
 * without the server's URL or secrets) when it cannot. Never throws; leaves no request open
 * behind a failure.
 */
export async function openMcpSession(plan: McpServerPlan, options: SessionOptions): Promise<{ ok: true; session: McpSession } | { ok: false; error: string }> {
  const redactor = mcpRedactor(plan.url, plan.headers);
  const { Client, StreamableHTTPClientTransport, SSEClientTransport } = await loadSdk();
  const { limits } = options;
  const url = new URL(plan.url);
  const requestInit: RequestInit = { headers: { ...plan.headers } };
  const attempts: Array<(wire: McpWire) => Transport> = [
    (wire) => new StreamableHTTPClientTransport(url, { fetch: wire.fetch, requestInit }),
    (wire) => new SSEClientTransport(url, { fetch: wire.fetch, requestInit }),
  ];
  const errors: string[] = [];
  for (const transport of attempts) {
    if (options.signal.aborted) break;
    const wire = mcpWire(options.fetch, { maxStringBytes: limits.maxResultBytes, maxMessageBytes: limits.maxMessageBytes, maxReadBytes: MAX_READ_BYTES }, options.signal);
    const client = new Client(CLIENT_INFO);
    const giveUp = (reason: Error): void => {
      wire.close(reason);
      void client.close().catch(ignore);
    };
    try {
      await boundedStep(`Connecting to ${plan.label}`, (signal) => client.connect(transport(wire), { signal, timeout: limits.timeoutMs }), wire.signal, limits.timeoutMs, giveUp);
      const listed = await listTools(client, plan, wire, limits, redactor, giveUp);
      return { ok: true, session: sessionOf(plan, client, wire, listed, limits, redactor) };
    } catch (error) {
      const described = describe(error, plan, redactor);
      if (!errors.includes(described)) errors.push(described);
      giveUp(error instanceof Error ? error : new Error(String(error)));
    }
  }
  // Each transport's reason: a server's own error is usually the first, an older server's the second.
  return { ok: false, error: errors.length > 0 ? errors.join(" Then, over HTTP+SSE: ") : describe(options.signal.reason, plan, redactor) };
}

/** The server's tools, page by page, each page within the deadline; reading stops where the listing bounds are reached. */
async function listTools(client: Client, plan: McpServerPlan, wire: McpWire, limits: SessionLimits, redactor: McpRedactor, giveUp: (reason: Error) => void): Promise<{ tools: McpTool[]; note: string | null }> {
  const tools: McpTool[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const listed = await boundedStep(
      `Listing the tools of ${plan.label}`,
      (signal) => client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: limits.timeoutMs }),
      wire.signal,
      limits.timeoutMs,
      giveUp,
    );
    for (const listedTool of listed.tools) {
      if (plan.allowedTools !== null && !plan.allowedTools.has(listedTool.name)) continue;
      // A tool is called by its name, which cannot be redacted: one that holds a secret is not offered.
      if (redactor.text(listedTool.name) !== listedTool.name) continue;
      const tool = redactedTool(listedTool, redactor);
      const size = toolBytes(tool);
      if (tools.length >= limits.maxTools || bytes + size > limits.maxToolsBytes) return { tools, note: listingCut(tools.length, bytes, limits) };
      tools.push(tool);
      bytes += size;
    }
    cursor = listed.nextCursor;
    if (!cursor) return { tools, note: null };
  }
  return { tools, note: `The server lists its tools over more than ${MAX_PAGES} pages: those of the first ${MAX_PAGES} are offered.` };
}

/** The size of a tool as the model is offered it (its JSON). */
export function toolBytes(tool: McpTool): number {
  return Buffer.byteLength(JSON.stringify(tool));
}

/** The note of a listing cut to the bounds. */
export function listingCut(offered: number, bytes: number, limits: Pick<SessionLimits, "maxTools" | "maxToolsBytes">): string {
  return `More tools are listed than the gateway offers: ${offered} tools (${bytes} bytes) are offered; a request is offered at most ${limits.maxTools} tools and ${limits.maxToolsBytes} bytes of them (GATEWAY_MCP_MAX_TOOLS, GATEWAY_MCP_MAX_TOOLS_BYTES).`;
}

function redactedTool(tool: { name: string; description?: string; inputSchema: unknown; annotations?: unknown }, redactor: McpRedactor): McpTool {
  return {
    name: tool.name,
    description: tool.description === undefined ? null : redactor.text(tool.description),
    input_schema: redactor.json(tool.inputSchema as Record<string, unknown>, { type: "object", properties: {} }),
    annotations: tool.annotations === undefined ? null : redactor.json(tool.annotations as Record<string, unknown>, null),
  };
}

function sessionOf(plan: McpServerPlan, client: Client, wire: McpWire, listed: { tools: McpTool[]; note: string | null }, limits: SessionLimits, redactor: ReturnType<typeof mcpRedactor>): McpSession {
  return {
    label: plan.label,
    tools: listed.tools,
    note: listed.note,
    async call(name, args, options) {
      wire.takeDropped();
      try {
        // The run's end (and an answer past the bounds) ends the call; its own deadline ends the call, not the session.
        const result = await boundedStep(
          `The call of ${name}`,
          (signal) => client.callTool({ name, arguments: args }, undefined, { signal, timeout: options.timeoutMs }),
          AbortSignal.any([options.signal, wire.signal]),
          options.timeoutMs,
          ignore,
        );
        const dropped = wire.takeDropped();
        const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
        const text = redactor.text(contentText(content, result.structuredContent));
        const bytes = Buffer.byteLength(text) + dropped;
        if (result.isError === true) {
          // The client sees the tool's content as it is, or its text cut like a result when it is larger.
          const cut = [{ type: "text", text: capped(text, limits.maxResultBytes, bytes) }];
          const shown = bytes > limits.maxResultBytes ? cut : redactor.json(content, cut);
          return { ok: false, error: { type: "mcp_tool_execution_error", content: shown }, text, bytes };
        }
        return { ok: true, output: text, bytes };
      } catch (error) {
        const code = typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : -32603;
        const message = describe(error, plan, redactor);
        return { ok: false, error: { type: "mcp_protocol_error", code, message }, text: message, bytes: Buffer.byteLength(message) };
      }
    },
    async close() {
      const reason = new Error("The MCP session was closed.");
      await boundedStep(`Closing ${plan.label}`, () => client.close(), new AbortController().signal, limits.timeoutMs, ignore).catch(ignore);
      wire.close(reason);
    },
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

/** A short message: no URL (a query could hold a token), no secret of the server in any encoding. */
function describe(error: unknown, plan: McpServerPlan, redactor: ReturnType<typeof mcpRedactor>): string {
  let text = error instanceof Error ? error.message : String(error);
  text = text.split(plan.url).join(plan.label);
  text = redactor.error(text);
  text = text.replace(/https?:\/\/\S+/g, "[url]");
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
