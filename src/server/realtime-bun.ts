/// <reference types="bun" />
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { ConnectUpstream, RealtimeLink, RealtimeMessage, RealtimeRuntime, RealtimeSession } from "../pipeline/realtime-session.ts";
import { fail, GatewayError, ok } from "../errors.ts";
import { bunPinnedTarget } from "../net/pinned-fetch.ts";

/**
 * Realtime sessions under Bun: the route upgrades with `server.upgrade` (the session rides on
 * the socket's `data`), `realtimeWebSocket` relays the client's side, and the upstream's socket
 * is Bun's own WebSocket client, which accepts headers.
 */
export function bunRealtime(server: Server<RealtimeSession>, request: Request): RealtimeRuntime {
  return {
    connect: connectWithBun,
    upgrade(session) {
      const headers = new Headers(session.responseHeaders);
      if (session.protocol) headers.set("sec-websocket-protocol", session.protocol);
      return server.upgrade(request, { data: session, headers });
    },
  };
}

/** The client's side of every session (`Bun.serve`'s `websocket`). */
export const realtimeWebSocket: WebSocketHandler<RealtimeSession> = {
  // Realtime events are small; audio goes in many of them. Bun's default limit is 16 MiB.
  perMessageDeflate: false,
  // Sessions may be quiet for long (a user thinking); the upstream decides when one is over.
  idleTimeout: 0,
  open(ws) {
    ws.data.attachClient(linkOf(ws));
  },
  message(ws, message) {
    ws.data.fromClient(typeof message === "string" ? message : new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
  },
  close(ws, code, reason) {
    ws.data.clientClosed(code, reason);
  },
};

function linkOf(ws: ServerWebSocket<RealtimeSession>): RealtimeLink {
  return {
    send(data: RealtimeMessage) {
      if (ws.readyState === 1) ws.send(data);
    },
    buffered: () => ws.getBufferedAmount(),
    close(code, reason) {
      if (ws.readyState === 0 || ws.readyState === 1) ws.close(code, reason);
    },
    terminate: () => ws.terminate(),
  };
}

/** Bun's WebSocket client takes headers; a refused handshake shows only as an error (502). */
export const connectWithBun: ConnectUpstream = (request, listener) =>
  new Promise((resolve) => {
    // A pinned name is dialled by its checked address, named in Host and in the TLS server name.
    const target = bunPinnedTarget(request.url, request.addresses, request.tls);
    const headers = target.host === null ? request.headers : { ...request.headers, host: target.host };
    const socket = new WebSocket(target.url, { headers, ...(target.tls ? { tls: target.tls } : {}) } as unknown as string[]);
    socket.binaryType = "arraybuffer";
    let settled = false;
    const settle = (result: Parameters<typeof resolve>[0]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      settle(fail(new GatewayError("request_timeout", `${request.providerName} did not open the realtime session within ${request.timeoutMs} ms.`)));
      socket.close();
    }, request.timeoutMs);
    socket.addEventListener("open", () => {
      settle(
        ok({
          send(data) {
            if (socket.readyState === WebSocket.OPEN) socket.send(data);
          },
          buffered: () => socket.bufferedAmount,
          close(code, reason) {
            if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(code, reason);
          },
          // Bun's client drops its connection at once with terminate(); close() would wait on a peer that does not read.
          terminate() {
            const { terminate } = socket as WebSocket & { terminate?: () => void };
            if (terminate) terminate.call(socket);
            else socket.close();
          },
        }),
      );
    });
    socket.addEventListener("message", (event) => {
      const { data } = event as MessageEvent<string | ArrayBuffer>;
      listener.message(typeof data === "string" ? data : new Uint8Array(data));
    });
    socket.addEventListener("error", () => {
      settle(fail(new GatewayError("upstream_unreachable", `${request.providerName} could not be reached or refused the realtime session.`)));
    });
    socket.addEventListener("close", (event) => {
      const { code, reason } = event as CloseEvent;
      if (settled) listener.close(code, reason);
      settle(fail(new GatewayError("upstream_unreachable", `${request.providerName} could not be reached or refused the realtime session.`)));
    });
  });
