import type { Gateway } from "../gateway.ts";

/** What the entry points ask of shutdown while they serve. */
export interface ShutdownState {
  /** True from the signal on: every response then tells the client to drop the connection. */
  readonly draining: boolean;
}

/**
 * On SIGTERM or SIGINT: stop accepting connections, answer every request that has arrived
 * (streams included), flush every pending log record, close the store, exit 0.
 *
 * `stopListening` must close idle keep-alive connections and close the others once their
 * response is sent. Responses sent while draining carry `Connection: close` (see
 * `closeWhileDraining`), so a client learns from the response itself that the connection ends
 * and never writes its next request into a socket the server is closing.
 */
export function onShutdownSignal(gateway: Gateway, stopListening: () => Promise<void>): ShutdownState {
  const state = { draining: false };
  const shutdown = async (signal: string): Promise<void> => {
    if (state.draining) return;
    state.draining = true;
    const quiet = gateway.deps.config.GATEWAY_QUIET;
    if (!quiet) console.log(`[gateway] ${signal}: draining ${gateway.deps.inflight.size} in-flight request(s)`);
    // Stop listening without waiting on open keep-alive connections; the drain waits for requests.
    const stopped = stopListening().catch(() => undefined);
    const { drained } = await gateway.drain();
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 1000))]);
    if (!drained) console.error("[gateway] shutdown timeout: some requests were still in flight");
    if (!quiet) console.log("[gateway] logs flushed; bye");
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  return state;
}

/**
 * The app's answer, with `Connection: close` added when it is ready while the gateway drains.
 * The check runs when the response is ready, not when the request arrived: a request that was
 * in flight at the signal must close its connection too. Never throws.
 */
export function closeWhileDraining(
  state: ShutdownState,
  response: Response | Promise<Response>,
): Response | Promise<Response> {
  if (response instanceof Response) return state.draining ? withConnectionClose(response) : response;
  return response.then((ready) => (state.draining ? withConnectionClose(ready) : ready));
}

function withConnectionClose(response: Response): Response {
  try {
    response.headers.set("connection", "close");
    return response;
  } catch {
    // Headers of a relayed upstream response are immutable: copy them into a new response.
    const copy = new Response(response.body, response);
    copy.headers.set("connection", "close");
    return copy;
  }
}
