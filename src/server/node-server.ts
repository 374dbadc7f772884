import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Server } from "node:http";
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
  options: { port: number; hostname: string },
  onListening?: (info: AddressInfo) => void,
): ServerType {
  const server = serve({ fetch: (request) => fetch(request), port: options.port, hostname: options.hostname }, onListening);
  server.on("clientError", answerClientError);
  acceptRealtimeUpgrades(server as Server, fetch);
  return server;
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
      : new GatewayError("invalid_request", "The request is not valid HTTP/1.1 (a malformed request line, header, chunked body or conflicting Content-Length and Transfer-Encoding).");
  const body = JSON.stringify(refused.toBody());
  const reason = refused.status === 431 ? "Request Header Fields Too Large" : "Bad Request";
  socket.end(
    `HTTP/1.1 ${refused.status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
