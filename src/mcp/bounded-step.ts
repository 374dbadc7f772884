/**
 * One step of an MCP session (connecting, a page of the listing, a call, closing) held to the
 * call deadline and to the run's signal (its deadline and the client leaving), whatever the
 * step's own promise does: the SDK's `connect()` waits on the transport's start with no timeout
 * of its own, and an older server's event stream may never name its endpoint.
 */

/** A step that ran out of time: its message says which step and how long it had. */
export class StepTimeout extends Error {}

/**
 * Runs `work` with a signal that aborts at `timeoutMs` or when `run` aborts; settles as soon as
 * either happens (rejecting with a `StepTimeout`, or with the run's reason), calling `giveUp`
 * so the step's transport is closed and its requests end. A late settlement of `work` is
 * ignored. Never leaves a timer or a listener behind.
 */
export async function boundedStep<T>(what: string, work: (signal: AbortSignal) => Promise<T>, run: AbortSignal, timeoutMs: number, giveUp: (reason: Error) => void): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new StepTimeout(`${what} timed out after ${timeoutMs} ms.`)), timeoutMs);
  timer.unref?.();
  const onRun = () => controller.abort(run.reason instanceof Error ? run.reason : new Error("The tool run was cancelled."));
  if (run.aborted) onRun();
  else run.addEventListener("abort", onRun, { once: true });
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const onAbort = () => {
    const reason = controller.signal.reason as Error;
    giveUp(reason);
    stop(reason);
  };
  try {
    if (controller.signal.aborted) {
      const reason = controller.signal.reason as Error;
      giveUp(reason);
      throw reason;
    }
    controller.signal.addEventListener("abort", onAbort, { once: true });
    const working = work(controller.signal);
    working.catch(() => undefined);
    return await Promise.race([working, stopped]);
  } finally {
    clearTimeout(timer);
    run.removeEventListener("abort", onRun);
    controller.signal.removeEventListener("abort", onAbort);
  }
}
