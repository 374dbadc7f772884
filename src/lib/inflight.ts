/**
 * Counts requests in flight (a stream counts until its log record is queued) so that
 * shutdown can wait for them before flushing logs.
 */
export class InflightTracker {
  private count = 0;
  private begun = 0;
  private waiters: Array<() => void> = [];

  /** Marks one request as started; call the returned function exactly once when it is done. */
  begin(): () => void {
    this.count += 1;
    this.begun += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.count -= 1;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  get size(): number {
    return this.count;
  }

  /** Requests begun since start: a counter that stands still while the gateway is idle. */
  get total(): number {
    return this.begun;
  }

  /** Resolves true when nothing is in flight, false if `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
