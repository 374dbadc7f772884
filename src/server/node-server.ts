import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { STATUS_CODES, type Server, type ServerOptions } from "node:http";
import { GatewayError } from "../errors.ts";
import { acceptRealtimeUpgrades, type BoundFetch } from "./realtime-node.ts";

/**
 * The gateway's HTTP server under Node: @hono/node-server, plus answers in the error envelope
 * for requests Node's HTTP parser refuses before the app sees them (oversized headers, a
 * malformed request line, headers or chunked body, conflicting framing headers), plus WebSocket
 * upgrades (realtime sessions, `realtime-node.ts`).
 */
export function serveOnNode(
  fetch: BoundFetch,
  options: { port: number; hostname: string; timeouts?: NodeTimeouts },
  onListening?: (info: AddressInfo) => void,
): ServerType {
  const server = serve(
    { fetch: (request) => fetch(request), port: options.port, hostname: options.hostname, serverOptions: serverTimeouts(options.timeouts ?? DEFAULT_TIMEOUTS) },
    onListening,
  );
  server.on("clientError", answerClientError);
  acceptRealtimeUpgrades(server as Server, fetch);
  return server;
}

/** How long Node lets a client take (`GATEWAY_HEADERS_TIMEOUT_MS`, `GATEWAY_BODY_TIMEOUT_MS`, `GATEWAY_IDLE_TIMEOUT_S`). */
export interface NodeTimeouts {
  /** The request line and headers must arrive within this: else 408 and the connection closed. */
  headersMs: number;
  /** The headers and the whole body must arrive within this (an upload's too). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

const DEFAULT_TIMEOUTS: NodeTimeouts = { headersMs: 10_000, requestMs: 300_000, keepAliveMs: 75_000 };

/**
 * Node's own defaults (60 s for headers, 300 s for a request, 5 s idle) are set explicitly from
 * the config. Node checks the first two only every `connectionsCheckingInterval` (30 s by
 * default), so a slow-loris client would get up to 30 s past its deadline: the sweep runs at a
 * tenth of the headers timeout instead (a second by default), one pass over the open connections.
 */
export function serverTimeouts(timeouts: NodeTimeouts): ServerOptions {
  return {
    // Node refuses a headers timeout above the request timeout; a shorter body limit wins.
    headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: Math.max(250, Math.min(1_000, Math.floor(timeouts.headersMs / 10))),
  };
}

/** Node's `clientError`: a parse error answered with the envelope, then the connection closed. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // As Node's own default handler does: once a response's headers are out on this connection,
  // no second answer can follow; a reset client hears nothing either way.
  const response = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (response?.headersSent || !socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const refused =
    error.code === "HPE_HEADER_OVERFLOW"
      ? new GatewayError("headers_too_large", "The request's headers (the URL included) are larger than the server accepts (16 KiB).")
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new GatewayError("request_timeout", "The request's headers or body did not arrive in time (GATEWAY_HEADERS_TIMEOUT_MS, GATEWAY_BODY_TIMEOUT_MS).")
        : new GatewayError("invalid_request", "The request is not valid HTTP/1.1 (a malformed request line, header, chunked body or conflicting Content-Length and Transfer-Encoding).");
  const body = JSON.stringify(refused.toBody());
  const reason = STATUS_CODES[refused.status] ?? "Bad Request";
  socket.end(
    `HTTP/1.1 ${refused.status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
