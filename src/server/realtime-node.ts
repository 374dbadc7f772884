import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer, type RawData } from "ws";
import type { GatewayBindings } from "../app-env.ts";
import type { ConnectUpstream, RealtimeLink, RealtimeMessage, RealtimeRuntime, RealtimeSession } from "../pipeline/realtime-session.ts";
import { errorEnvelope, fail, GatewayError, ok } from "../errors.ts";
import { pinnedLookup } from "../net/pinned-fetch.ts";

/** The app as the Node entry point serves it, with what it lends a request. */
export type BoundFetch = (request: Request, env?: GatewayBindings) => Response | Promise<Response>;

/**
 * Realtime sessions under Node: each WebSocket upgrade goes through the app (auth, target, log)
 * with the `realtime` binding; when the route opens a session, `ws` completes the handshake on
 * the socket, otherwise the app's answer (a JSON error) is written on it and it is closed.
 * Node 20 has no WebSocket client, so the upstream's socket is a `ws` client too.
 */
export function acceptRealtimeUpgrades(server: Server, fetch: BoundFetch): void {
  const sessions = new WeakMap<IncomingMessage, RealtimeSession>();
  const wss = new WebSocketServer({
    noServer: true,
    // Never echo what the client offered first (it may be its key): only the session's choice.
    handleProtocols: (_offered, req) => sessions.get(req)?.protocol ?? false,
  });
  wss.on("headers", (headers, req) => {
    const session = sessions.get(req);
    if (session) for (const [name, value] of Object.entries(session.responseHeaders)) headers.push(`${name}: ${value}`);
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    void serveUpgrade(req, socket, head).catch(() => socket.destroy());
  });

  async function serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let opened: RealtimeSession | null = null;
    const runtime: RealtimeRuntime = {
      connect: connectWithWs,
      upgrade(session) {
        if (socket.destroyed) return false;
        opened = session;
        return true;
      },
    };
    let response: Response;
    try {
      response = await fetch(requestOf(req), { realtime: runtime });
    } catch {
      response = errorResponse(new GatewayError("internal_error", "Internal error"));
    }
    const session = opened as RealtimeSession | null;
    if (!session) return writeResponse(socket, response);
    sessions.set(req, session);
    let attached = false;
    // A handshake `ws` refuses (or a client gone meanwhile) never attaches: the session ends.
    socket.once("close", () => {
      if (!attached) session.clientClosed(1006, "");
    });
    wss.handleUpgrade(req, socket, head, (client) => {
      attached = true;
      client.on("message", (data, isBinary) => session.fromClient(messageOf(data, isBinary)));
      client.on("close", (code, reason) => session.clientClosed(code, reason.toString()));
      client.on("error", () => client.terminate());
      session.attachClient(linkOf(client));
    });
  }
}

/** The upstream's socket, a `ws` client; a refused handshake keeps the upstream's status and error. */
export const connectWithWs: ConnectUpstream = (request, listener) =>
  new Promise((resolve) => {
    // ws hands `lookup` to the socket; TLS still verifies the URL's host name.
    const pinned = request.addresses ? { lookup: pinnedLookup({ addressesForConnect: async () => ok(request.addresses) }) } : {};
    const socket = new WebSocket(request.url, { headers: request.headers, handshakeTimeout: request.timeoutMs, perMessageDeflate: false, ...request.tls, ...pinned });
    let settled = false;
    const settle = (result: Parameters<typeof resolve>[0]): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    socket.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 502;
        settle(fail(status >= 400 ? request.refused(status, text) : new GatewayError("upstream_unreachable", `${request.providerName} answered the realtime handshake with HTTP ${status}.`)));
        socket.terminate();
      });
    });
    socket.on("open", () => {
      socket.on("message", (data, isBinary) => listener.message(messageOf(data, isBinary)));
      socket.on("close", (code, reason) => listener.close(code, reason.toString()));
      settle(ok(linkOf(socket)));
    });
    socket.on("error", (error) => {
      const timedOut = /timed out/i.test(error.message);
      settle(
        fail(
          timedOut
            ? new GatewayError("request_timeout", `${request.providerName} did not open the realtime session within ${request.timeoutMs} ms.`)
            : new GatewayError("upstream_unreachable", `${request.providerName} could not be reached for the realtime session.`),
        ),
      );
    });
  });

function linkOf(socket: WebSocket): RealtimeLink {
  return {
    send(data: RealtimeMessage) {
      if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary: typeof data !== "string" });
    },
    buffered: () => socket.bufferedAmount,
    close(code, reason) {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(code, reason);
    },
    terminate: () => socket.terminate(),
  };
}

function messageOf(data: RawData, isBinary: boolean): RealtimeMessage {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return isBinary ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes.toString("utf8");
}

function requestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), { method: req.method, headers });
}

function errorResponse(error: GatewayError): Response {
  return new Response(JSON.stringify(errorEnvelope(error)), { status: error.status, headers: { "content-type": "application/json" } });
}

/** The app's answer to an upgrade it did not accept, written on the raw socket; then it is closed. */
async function writeResponse(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  if (!socket.writable) return void socket.destroy();
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`];
  response.headers.forEach((value, name) => {
    if (!["connection", "content-length", "transfer-encoding", "upgrade"].includes(name)) lines.push(`${name}: ${value}`);
  });
  lines.push(`content-length: ${body.byteLength}`, "connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}
