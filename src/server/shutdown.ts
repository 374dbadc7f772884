import type { Gateway } from "../gateway.ts";

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (streams
 * included), flush every pending log record, close the store, exit.
 */
export function onShutdownSignal(gateway: Gateway, stopListening: () => Promise<void>): void {
  let started = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (started) return;
    started = true;
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
}
