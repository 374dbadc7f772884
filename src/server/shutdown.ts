import type { InflightTracker } from "../lib/inflight.ts";
import { errorEnvelope, GatewayError } from "../errors.ts";
import type { Gateway } from "../gateway.ts";

/** What the entry points ask of shutdown while they serve. */
export interface ShutdownState {
  /** True from the signal on: every response then tells the client to drop the connection. */
  draining: boolean;
  /** When the last request arrived while draining (`performance.now()`). */
  lastRequestAt?: number;
  /** True once the final drain began: a request arriving later is refused, not served unlogged. */
  closed?: boolean;
}

/** Requests arriving this recently keep the listener open after the signal… */
export const SETTLE_QUIET_MS = 250;
/** …for at most this long. */
export const SETTLE_MAX_MS = 2_000;

/**
 * On SIGTERM or SIGINT: answer every request that has arrived (streams included), stop
 * accepting connections, flush every pending log record, close the store, exit 0.
 *
 * Stopping the listener also closes the keep-alive connections that look idle, and a request a
 * client has just written into one is then lost to a reset. So the gateway first keeps serving
 * until no request has arrived for a moment (`waitUntilQuiet`), answering each with
 * `Connection: close` (`closeWhileDraining`): a client learns from the answer itself that the
 * connection ends. Only then does `stopListening` close what is left.
 */
export function onShutdownSignal(gateway: Gateway, stopListening: () => Promise<void>): ShutdownState {
  const state: ShutdownState = { draining: false };
  const shutdown = async (signal: string): Promise<void> => {
    if (state.draining) return;
    state.draining = true;
    state.lastRequestAt = performance.now();
    // Realtime sessions would hold the drain until they end: they are closed (1001) and logged now.
    gateway.deps.realtime.closeAll();
    const quiet = gateway.deps.config.GATEWAY_QUIET;
    if (!quiet) console.log(`[gateway] ${signal}: draining ${gateway.deps.inflight.size} in-flight request(s)`);
    await waitUntilQuiet(state, gateway.deps.inflight);
    // Stop listening, waiting at most a second on open keep-alive connections; then refuse what
    // still arrives on them, so that every request served is one the drain waits for and logs.
    await Promise.race([stopListening().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000))]);
    state.closed = true;
    const { drained } = await gateway.drain();
    if (!drained) console.error("[gateway] shutdown timeout: some requests were still in flight");
    if (!quiet) console.log("[gateway] logs flushed; bye");
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  return state;
}

/**
 * Resolves once nothing is in flight and no request has arrived for `quietMs`, or after `maxMs`
 * (a client that keeps sending must not hold the shutdown up). Never rejects.
 */
export async function waitUntilQuiet(
  state: ShutdownState,
  inflight: Pick<InflightTracker, "idle" | "size">,
  { quietMs = SETTLE_QUIET_MS, maxMs = SETTLE_MAX_MS } = {},
): Promise<void> {
  const deadline = performance.now() + maxMs;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    await inflight.idle(left);
    const quietFor = performance.now() - (state.lastRequestAt ?? 0);
    if (quietFor >= quietMs && inflight.size === 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(quietMs - quietFor, deadline - performance.now()))));
  }
}

/**
 * Serves one request through `handle`, counted in flight from its arrival until its answer is
 * ready (the request log counts a stream on until it ends), so the drain never misses a request
 * still on its way to its log. Once the final drain began, the request gets 503 instead.
 */
export function serveUntilClosed(
  state: ShutdownState,
  inflight: Pick<InflightTracker, "begin">,
  handle: () => Response | Promise<Response>,
): Response | Promise<Response> {
  if (state.closed) return refusedWhileClosing();
  const done = inflight.begin();
  let response: Response | Promise<Response>;
  try {
    response = handle();
  } catch (error) {
    done();
    throw error;
  }
  if (response instanceof Response) {
    done();
    return closeWhileDraining(state, response);
  }
  return closeWhileDraining(state, response.finally(done));
}

function refusedWhileClosing(): Response {
  const error = new GatewayError("service_unavailable", "The gateway is shutting down; send the request again.");
  return new Response(JSON.stringify(errorEnvelope(error)), { status: error.status, headers: { "content-type": "application/json", connection: "close" } });
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
  if (state.draining) state.lastRequestAt = performance.now();
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
