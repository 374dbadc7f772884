/**
 * Gives memory back once traffic stops. A garbage-collected runtime collects when it allocates, so
 * after a burst an idle process keeps the burst's garbage (tens of MB) until the next request.
 * This polls a counter of work done: when it moved since the last collection but not during the
 * last quiet period, it collects once. Nothing runs per request; a request that arrives during
 * the collection waits for it (a few milliseconds, at most once per quiet period).
 */
export interface IdleCollectorOptions {
  /** Work done so far: requests begun, batches written. Read once per period. */
  readonly workDone: () => number;
  /** A full collection (Bun's `Bun.gc(true)`). */
  readonly collect: () => void;
  /** How long the counter must stand still. */
  readonly quietMs: number;
}

/** Starts polling; the timer never keeps the process alive. Returns a function that stops it. */
export function startIdleCollector({ workDone, collect, quietMs }: IdleCollectorOptions): () => void {
  let seen = workDone();
  // The first quiet period collects too: start-up leaves garbage of its own.
  let collectedAt = Number.NaN;
  const timer = setInterval(() => {
    const now = workDone();
    if (now === seen && now !== collectedAt) {
      collectedAt = now;
      collect();
    }
    seen = now;
  }, quietMs);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}

/** The runtime's full collection where it offers one (Bun), or undefined (Node without --expose-gc). */
export function fullCollection(): (() => void) | undefined {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  return bun ? () => bun.gc(true) : undefined;
}
