import type { LogStore } from "../store/log-store.ts";

export interface LogRetentionOptions {
  /** Logs older than this many days are deleted. */
  days: number;
  /** How often a sweep starts (default hourly); the first starts at once. */
  everyMs?: number;
  /** Logs per delete statement (default 1,000). */
  batch?: number;
  /** Pause between two statements (default 200 ms), so writers and readers get the store in between. */
  pauseMs?: number;
  onError?: (error: unknown) => void;
}

export interface LogRetention {
  /** Resolves when the sweep under way, if any, has finished. */
  idle(): Promise<void>;
  /** Stops the timer and any sweep after its current statement; resolves once it has. */
  stop(): Promise<void>;
}

/**
 * Deletes expired logs on a timer, off the request path, in small batches with pauses, so a
 * large backlog (the first sweep after enabling retention) never holds the store for long.
 */
export function startLogRetention(store: Pick<LogStore, "deleteExpiredStep">, options: LogRetentionOptions): LogRetention {
  const batch = options.batch ?? 1_000;
  const pauseMs = options.pauseMs ?? 200;
  let stopped = false;
  let sweeping: Promise<void> = Promise.resolve();

  const sweep = async (): Promise<void> => {
    const cutoffMs = Date.now() - options.days * 86_400_000;
    while (!stopped) {
      const step = await store.deleteExpiredStep(cutoffMs, batch);
      if (step.logs === 0 && step.rollups === 0) return;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const start = () => {
    // One sweep at a time: a slow one is never overlapped by the next tick.
    sweeping = sweeping.then(() => (stopped ? undefined : sweep().catch((error: unknown) => options.onError?.(error))));
  };
  start();
  const timer = setInterval(start, options.everyMs ?? 3_600_000);
  timer.unref?.();
  return {
    idle: () => sweeping,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sweeping;
    },
  };
}
