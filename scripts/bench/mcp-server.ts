/**
 * The bench's MCP server, as cheap as an MCP server can be, so that what the gateway adds to a
 * tool call dominates what the bench sees. Hand-written rather than the official SDK's
 * `McpServer`: the SDK validates every message with zod schemas and routes it through its
 * protocol layer, which would cost more per call than the hop under test (docs/benchmark.md,
 * "The MCP target"). It speaks what a Streamable HTTP client needs and no more: `initialize`
 * opens a session (an `Mcp-Session-Id`), every later POST must carry one it knows (else 404, as a
 * restarted server answers, or 400 without one), notifications and responses are accepted (202),
 * requests are answered as one JSON body (never a stream), `DELETE` ends a session and `GET`
 * (the server's own stream) is refused with 405. One tool, `lookup`, answers a fixed text.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import { randomUUID } from "node:crypto";

/** The protocol revisions the official SDK negotiates (its `SUPPORTED_PROTOCOL_VERSIONS`), newest first. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;

export const BENCH_TOOL = "lookup";

/** The `tools/call` request the bench sends, its id left to the caller. */
export function toolCallBody(id: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${BENCH_TOOL}","arguments":{"query":"why does a reverse proxy add latency","limit":3}}}`;
}

/** The text of every `lookup` result: about the size of a small search tool's answer. */
export const LOOKUP_TEXT =
  "1. Every hop parses, copies and re-sends the request. 2. The client waits for the proxy's own work on top of the server's. " +
  "3. Connection reuse and streaming relays keep that overhead small.";

const RESULT = JSON.stringify({ content: [{ type: "text", text: LOOKUP_TEXT }], isError: false });
const TOOLS = JSON.stringify({
  tools: [
    {
      name: BENCH_TOOL,
      description: "Looks a query up; answers a fixed text.",
      inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" } }, required: ["query"] },
    },
  ],
});

// A new object per answer: an adapter may write the length into the headers it was given (@hono/node-server does).
const jsonHeaders = (): Record<string, string> => ({ "content-type": "application/json" });

interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: { protocolVersion?: unknown; name?: unknown } | null;
}

const answer = (id: unknown, result: string, headers: Record<string, string> = jsonHeaders()): Response =>
  new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`, { status: 200, headers });

const failure = (status: number, id: unknown, code: number, message: string): Response =>
  new Response(JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }), { status, headers: jsonHeaders() });

/** The server's handler (web-standard: Bun.serve's `fetch`, or any adapter's), with its own sessions. */
export function mcpBenchHandler(): { fetch(request: Request): Promise<Response>; sessions(): number } {
  const sessions = new Set<string>();
  const known = (request: Request): { ok: true; id: string } | { ok: false; response: Response } => {
    const id = request.headers.get("mcp-session-id");
    if (id === null) return { ok: false, response: failure(400, null, -32000, "Bad Request: Mcp-Session-Id header is required") };
    if (!sessions.has(id)) return { ok: false, response: failure(404, null, -32001, "Session not found") };
    return { ok: true, id };
  };
  const fetch = async (request: Request): Promise<Response> => {
    if (request.method === "GET") return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
    if (request.method === "DELETE") {
      const held = known(request);
      if (!held.ok) return held.response;
      sessions.delete(held.id);
      return new Response(null, { status: 200 });
    }
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
    let message: Message;
    try {
      message = (await request.json()) as Message;
    } catch {
      return failure(400, null, -32700, "Parse error");
    }
    if (message === null || typeof message !== "object" || Array.isArray(message) || message.jsonrpc !== "2.0") {
      return failure(400, null, -32600, "Invalid Request");
    }
    if (message.method === "initialize") {
      const asked = message.params?.protocolVersion;
      const version = PROTOCOL_VERSIONS.find((known) => known === asked) ?? PROTOCOL_VERSIONS[0];
      const id = randomUUID();
      sessions.add(id);
      const result = JSON.stringify({ protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo: { name: "bench-mcp", version: "1.0.0" } });
      return answer(message.id, result, { ...jsonHeaders(), "mcp-session-id": id });
    }
    const held = known(request);
    if (!held.ok) return held.response;
    // A notification, or the client's answer to a server's request: accepted, nothing to say.
    if (message.id === undefined || message.method === undefined) return new Response(null, { status: 202 });
    switch (message.method) {
      case "tools/call":
        if (message.params?.name !== BENCH_TOOL) return failure(200, message.id, -32602, `Unknown tool: ${String(message.params?.name)}`);
        return answer(message.id, RESULT);
      case "tools/list":
        return answer(message.id, TOOLS);
      case "ping":
        return answer(message.id, "{}");
      default:
        return failure(200, message.id, -32601, "Method not found");
    }
  };
  return { fetch, sessions: () => sessions.size };
}
