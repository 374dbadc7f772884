import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A real MCP server (the official SDK, Streamable HTTP, stateless) on a loopback port, recording the headers of every request. */
export interface TestMcpServer {
  url: string;
  /** Headers of every HTTP request it received. */
  requests: IncomingHttpHeaders[];
  /** Tool calls it ran: name and arguments. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  close(): Promise<void>;
}

const TOOLS = [
  { name: "add", description: "Adds two numbers.", inputSchema: { type: "object" as const, properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
  { name: "explode", description: "Always fails.", inputSchema: { type: "object" as const, properties: {} } },
  { name: "delete_file", description: "Deletes a file.", inputSchema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "nap", description: "Answers after `ms` milliseconds.", inputSchema: { type: "object" as const, properties: { ms: { type: "number" } } } },
  { name: "big", description: "Answers `bytes` bytes of text.", inputSchema: { type: "object" as const, properties: { bytes: { type: "number" } } } },
];

function mcpServer(calls: TestMcpServer["calls"]): Server {
  const server = new Server({ name: "test-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    calls.push({ name: request.params.name, arguments: args });
    if (request.params.name === "add") return { content: [{ type: "text", text: `SUM=${Number(args.a) + Number(args.b)}` }] };
    if (request.params.name === "explode") return { content: [{ type: "text", text: "boom: the tool broke" }], isError: true };
    if (request.params.name === "nap") {
      await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
      return { content: [{ type: "text", text: "rested" }] };
    }
    if (request.params.name === "big") return { content: [{ type: "text", text: "x".repeat(Number(args.bytes)) }] };
    if (request.params.name === "delete_file") return { content: [{ type: "text", text: `deleted ${String(args.path)}` }] };
    return { content: [{ type: "text", text: "unknown tool" }], isError: true };
  });
  return server;
}

export async function startMcpServer(): Promise<TestMcpServer> {
  const requests: IncomingHttpHeaders[] = [];
  const calls: TestMcpServer["calls"] = [];
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const server = mcpServer(calls);
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      void server.connect(transport).then(() => transport.handleRequest(req, res, text === "" ? undefined : JSON.parse(text)));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** The same tools over the older HTTP+SSE transport only (`GET /sse`, `POST /messages`): what servers before Streamable HTTP speak. */
export async function startSseMcpServer(): Promise<TestMcpServer> {
  const requests: IncomingHttpHeaders[] = [];
  const calls: TestMcpServer["calls"] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    const url = new URL(req.url ?? "/", "http://local");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      void mcpServer(calls).connect(transport);
      return;
    }
    const transport = url.pathname === "/messages" ? sessions.get(url.searchParams.get("sessionId") ?? "") : undefined;
    if (req.method === "POST" && transport) {
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    requests,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
