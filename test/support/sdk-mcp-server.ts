import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A real MCP server built with the official SDK (`McpServer`, Streamable HTTP with sessions) on a
 * loopback port: tools that succeed, fail, stream progress and read the token they were sent; a
 * prompt and a resource. `restart` forgets every session, as a restarted server does.
 */
export interface SdkMcpServer {
  url: string;
  /** Headers of every HTTP request it received. */
  requests: IncomingHttpHeaders[];
  /** Tool calls it ran, by name. */
  calls: string[];
  /** Sessions it opened (`initialize`s it answered). */
  initializations(): number;
  restart(): void;
  close(): Promise<void>;
}

export async function startSdkMcpServer(options: { name: string; token?: string } = { name: "tools" }): Promise<SdkMcpServer> {
  const requests: IncomingHttpHeaders[] = [];
  const calls: string[] = [];
  let transports = new Map<string, StreamableHTTPServerTransport>();
  let initializations = 0;

  const serverFor = (): McpServer => {
    const server = new McpServer({ name: options.name, version: "1.0.0" }, { capabilities: { logging: {} } });
    server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      calls.push("add");
      return { content: [{ type: "text", text: `SUM=${a + b}` }] };
    });
    server.registerTool("explode", { description: "Always fails." }, async () => {
      calls.push("explode");
      return { content: [{ type: "text", text: "boom: the tool broke" }], isError: true };
    });
    server.registerTool("count", { description: "Counts to n, reporting progress.", inputSchema: { n: z.number() } }, async ({ n }, extra) => {
      calls.push("count");
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= n; i += 1) {
        if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n } });
      }
      return { content: [{ type: "text", text: `counted ${n}` }] };
    });
    server.registerTool("echo_auth", { description: "Answers the authorization it was sent." }, async (extra) => {
      calls.push("echo_auth");
      const sent = extra.requestInfo?.headers.authorization;
      return { content: [{ type: "text", text: `you sent ${String(sent)}` }] };
    });
    server.registerTool("echo", { description: "Answers its text.", inputSchema: { text: z.string() } }, async ({ text }) => {
      calls.push("echo");
      return { content: [{ type: "text", text }] };
    });
    server.registerTool("contact", { description: "Answers a contact's address." }, async () => {
      calls.push("contact");
      return { content: [{ type: "text", text: "reach grace at grace@example.org" }] };
    });
    server.registerTool("sleep", { description: "Answers after ms milliseconds.", inputSchema: { ms: z.number() } }, async ({ ms }) => {
      calls.push("sleep");
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: "text", text: "awake" }] };
    });
    server.registerTool("big", { description: "Answers bytes bytes of text.", inputSchema: { bytes: z.number() } }, async ({ bytes }) => {
      calls.push("big");
      return { content: [{ type: "text", text: "x".repeat(bytes) }] };
    });
    server.registerPrompt("greet", { description: "A greeting.", argsSchema: { who: z.string() } }, ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${who}` } }] }));
    server.registerResource("readme", "file:///readme.md", { description: "The readme.", mimeType: "text/markdown" }, async (uri) => ({ contents: [{ uri: uri.href, text: `# ${options.name}` }] }));
    return server;
  };

  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? undefined : JSON.parse(text);
      const sessionId = req.headers["mcp-session-id"];
      const existing = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
      if (existing) return void existing.handleRequest(req, res, body);
      if (body?.method !== "initialize") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
        return;
      }
      const known = transports;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          initializations += 1;
          known.set(id, transport);
        },
      });
      void serverFor()
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    calls,
    initializations: () => initializations,
    restart() {
      for (const transport of transports.values()) void transport.close();
      transports = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const transport of transports.values()) void transport.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
