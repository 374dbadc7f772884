import type { RealtimeLink, RealtimeMessage, RealtimeRuntime, RealtimeSession } from "../pipeline/realtime-session.ts";
import { connectWithWs } from "./realtime-node.ts";

/** The part of Deno's API this module uses (the project type-checks with Node's and Bun's types). */
declare const Deno: {
  upgradeWebSocket(request: Request, options?: { protocol?: string; idleTimeout?: number }): { socket: WebSocket; response: Response };
};

/** The 101 answer of an upgraded request, which the entry point sends instead of the app's. */
export interface DenoUpgrade {
  response: Response | null;
}

/**
 * Realtime sessions under Deno: the route upgrades with `Deno.upgradeWebSocket`, whose 101
 * answer the entry point sends (`upgraded.response`); the upstream's socket is a `ws` client, as
 * under Node, so it dials the address the custom-host guard checked.
 */
export function denoRealtime(request: Request, upgraded: DenoUpgrade): RealtimeRuntime {
  return {
    connect: connectWithWs,
    upgrade(session) {
      let socket: WebSocket;
      let response: Response;
      try {
        // Sessions may be quiet for long (a user thinking): no ping deadline of Deno's own.
        ({ socket, response } = Deno.upgradeWebSocket(request, { ...(session.protocol ? { protocol: session.protocol } : {}), idleTimeout: 0 }));
      } catch {
        return false;
      }
      for (const [name, value] of Object.entries(session.responseHeaders)) response.headers.set(name, value);
      socket.binaryType = "arraybuffer";
      socket.onopen = () => session.attachClient(linkOf(socket));
      socket.onmessage = (event: MessageEvent<string | ArrayBuffer>) => session.fromClient(typeof event.data === "string" ? event.data : new Uint8Array(event.data));
      socket.onclose = (event) => session.clientClosed(event.code, event.reason);
      upgraded.response = response;
      return true;
    },
  };
}

function linkOf(socket: WebSocket): RealtimeLink {
  return {
    send(data: RealtimeMessage) {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    },
    buffered: () => socket.bufferedAmount,
    close: (code, reason) => closeQuietly(socket, code, reason),
    // A web socket has no abrupt close: a close frame without a code is the nearest.
    terminate: () => closeQuietly(socket),
  };
}

function closeQuietly(socket: WebSocket, code?: number, reason?: string): void {
  if (socket.readyState !== WebSocket.OPEN && socket.readyState !== WebSocket.CONNECTING) return;
  try {
    socket.close(code, reason);
  } catch {
    socket.close();
  }
}
