/**
 * The fetch one MCP session's transport uses: the gateway's pinned fetch (each connection to an
 * address the custom-host guard checked) with every redirect refused, every request ended when
 * the session is, and every answer body cut while it is read (`message-cut.ts`), so the SDK
 * never holds more of an answer than the bounds allow.
 */
import type { FetchLike } from "../net/upstream-call.ts";
import { messageCutStream, type MessageCutLimits } from "./message-cut.ts";

export type TransportFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface McpWire {
  readonly fetch: TransportFetch;
  /** Aborted, with the reason, when an answer passed a bound or the wire was closed. */
  readonly signal: AbortSignal;
  /** Bytes dropped from cut strings since the last call. */
  takeDropped(): number;
  /** Ends every request of the wire, those in flight included. Safe to call more than once. */
  close(reason: Error): void;
}

/**
 * A wire over `fetch`, ended when `parent` aborts (the run's deadline, the client leaving).
 * Never throws; its fetch rejects on a redirect (any 3xx: the SDK would follow one within the
 * server's origin, carrying its headers) and on a closed wire.
 */
export function mcpWire(fetch: FetchLike, limits: MessageCutLimits, parent: AbortSignal): McpWire {
  const controller = new AbortController();
  const onParent = () => controller.abort(parent.reason);
  if (parent.aborted) onParent();
  else parent.addEventListener("abort", onParent, { once: true });
  controller.signal.addEventListener("abort", () => parent.removeEventListener("abort", onParent), { once: true });
  let dropped = 0;
  const hooks = {
    onCut: (bytes: number) => {
      dropped += bytes;
    },
    onOverflow: (error: Error) => controller.abort(error),
  };
  return {
    signal: controller.signal,
    takeDropped() {
      const taken = dropped;
      dropped = 0;
      return taken;
    },
    close(reason) {
      if (!controller.signal.aborted) controller.abort(reason);
    },
    async fetch(input, init) {
      controller.signal.throwIfAborted();
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
      const response = await fetch(url, { ...init, signal, redirect: "manual" });
      if ((response.status >= 300 && response.status < 400) || response.type === "opaqueredirect") {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`The MCP server answered with a redirect (HTTP ${response.status}); the gateway follows none.`);
      }
      if (!response.body || response.status === 204 || response.status === 205) return response;
      const eventStream = /^\s*text\/event-stream/i.test(response.headers.get("content-type") ?? "");
      const body = response.body.pipeThrough(messageCutStream(limits, eventStream, hooks));
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
}
