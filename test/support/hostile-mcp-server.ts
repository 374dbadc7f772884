import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * MCP servers that misbehave, for the tool run's bounds: a hand-written Streamable HTTP server
 * (JSON answers) whose listing and tools a test chooses, answering each path its own way, and a
 * TCP port that accepts and never answers.
 */

/** One JSON-RPC request as the server received it, with the HTTP request's path and headers. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rpc: string | null;
}

/** How one path answers: `null` for the default MCP behaviour (the listing and tools below). */
export type PathHandler = (req: IncomingMessage, res: ServerResponse, rpc: { method?: string; id?: unknown; params?: Record<string, any> } | null) => boolean | void;

export interface HostileTool {
  name: string;
  /** Its description, or how it is written from the listing request's headers. */
  description?: string | ((headers: IncomingHttpHeaders) => string);
  /** Writes the call's JSON-RPC answer itself (to stream it), or returns its result object. */
  run(args: Record<string, any>, headers: IncomingHttpHeaders, answer: Answer): Record<string, unknown> | void;
}

export interface Answer {
  /** Streams a JSON-RPC result whose text content is `bytes` bytes of `x`, written in chunks. */
  streamText(bytes: number): void;
  /** Answers a JSON-RPC error. */
  error(code: number, message: string): void;
  /** Answers the raw JSON text of a whole JSON-RPC message. */
  raw(text: string): void;
}

export interface HostileMcpServer {
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string): string;
  seen: SeenRequest[];
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  close(): Promise<void>;
}

export interface HostileOptions {
  tools?: HostileTool[];
  /** The listing, page by page: each page's tools (name and description) and whether more follow. */
  listing?: (cursor: string | undefined, headers: IncomingHttpHeaders) => { tools: Array<{ name: string; description?: string }>; nextCursor?: string };
  paths?: Record<string, PathHandler>;
}

const schema = { type: "object", properties: {} };

export async function startHostileMcpServer(options: HostileOptions = {}): Promise<HostileMcpServer> {
  const seen: SeenRequest[] = [];
  const calls: HostileMcpServer["calls"] = [];
  const tools = options.tools ?? [];
  const listing: NonNullable<HostileOptions["listing"]> =
    options.listing ??
    ((_cursor, headers) => ({
      tools: tools.map((tool) => ({ name: tool.name, description: typeof tool.description === "function" ? tool.description(headers) : (tool.description ?? tool.name) })),
    }));
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const path = new URL(req.url ?? "/", "http://local").pathname;
      seen.push({ method: req.method ?? "", path, headers: req.headers, rpc: text === "" ? null : text });
      let rpc: { method?: string; id?: unknown; params?: Record<string, any> } | null = null;
      try {
        rpc = text === "" ? null : JSON.parse(text);
      } catch {
        rpc = null;
      }
      const special = options.paths?.[path];
      if (special && special(req, res, rpc) !== false) return;
      if (req.method !== "POST") return void res.writeHead(405).end();
      if (!rpc || rpc.id === undefined) return void res.writeHead(202).end();
      const answer = answerOf(res, rpc.id);
      if (rpc.method === "initialize") {
        return answer.raw(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: { protocolVersion: rpc.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } }));
      }
      if (rpc.method === "tools/list") {
        const page = listing(rpc.params?.cursor, req.headers);
        const listed = page.tools.map((tool) => ({ name: tool.name, description: tool.description ?? tool.name, inputSchema: schema }));
        return answer.raw(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: { tools: listed, ...(page.nextCursor && { nextCursor: page.nextCursor }) } }));
      }
      if (rpc.method === "tools/call") {
        const name = String(rpc.params?.name);
        const args = (rpc.params?.arguments ?? {}) as Record<string, any>;
        calls.push({ name, arguments: args });
        const tool = tools.find((candidate) => candidate.name === name);
        if (!tool) return answer.error(-32602, `no tool ${name}`);
        const result = tool.run(args, req.headers, answer);
        if (result) answer.raw(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result }));
        return;
      }
      return answer.error(-32601, "method not found");
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: (path = "/mcp") => `http://127.0.0.1:${port}${path}`,
    seen,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function answerOf(res: ServerResponse, id: unknown): Answer {
  return {
    raw(text) {
      res.writeHead(200, { "content-type": "application/json" }).end(text);
    },
    error(code, message) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
    },
    streamText(bytes) {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
      const chunk = Buffer.alloc(1024 * 1024, "x");
      let left = bytes;
      const more = (): void => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= piece.length;
          if (!res.write(piece)) {
            res.once("drain", more);
            return;
          }
        }
        res.end(`"}]}}`);
      };
      res.on("close", () => {
        left = 0;
      });
      more();
    },
  };
}

/** A TCP port that accepts connections and never answers a byte. */
export async function startSilentPort(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createTcpServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
