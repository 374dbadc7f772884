import type { SharedRedis } from "../shared-state/redis.ts";
import type { MemoryRunCounters } from "./run-counters.ts";
import type { RunCounters, RunId, RunPlan, RunState, RunVerdict } from "./run-counters.ts";
import type { RedisRunCounters } from "./redis-run-counters.ts";

/**
 * Runs counted in Redis when it is configured and reachable, in process otherwise (one line in
 * the gateway's log per outage): a run's breaker holds across replicas through Redis, and on
 * each replica alone without it. A resume clears both. Never throws.
 */
export class FailoverRunCounters implements RunCounters {
  private outage = false;

  constructor(
    private readonly redis: SharedRedis | null,
    private readonly shared: RedisRunCounters | null,
    private readonly local: MemoryRunCounters,
    private readonly report: (line: string) => void = (line) => console.error(line),
  ) {}

  admit(plan: RunPlan): Promise<RunVerdict> {
    return this.either((counters) => counters.admit(plan));
  }

  settle(run: RunId | null, velocityKeys: readonly string[], units: number, nowMs: number): Promise<void> {
    return this.either((counters) => counters.settle(run, velocityKeys, units, nowMs));
  }

  state(run: RunId): Promise<RunState | null> {
    return this.either((counters) => counters.state(run));
  }

  async resume(run: RunId): Promise<RunState | null> {
    const local = await this.local.resume(run);
    if (!this.shared || !this.redis?.available) return local;
    try {
      return (await this.shared.resume(run)) ?? local;
    } catch (error) {
      this.down(error);
      return local;
    }
  }

  close(): void {
    this.local.close();
  }

  private async either<T>(work: (counters: RunCounters) => Promise<T>): Promise<T> {
    if (this.shared && this.redis?.available) {
      try {
        const result = await work(this.shared);
        if (this.outage) {
          this.outage = false;
          this.report("[gateway] runs: Redis reachable again; runs are counted across replicas");
        }
        return result;
      } catch (error) {
        this.down(error);
      }
    }
    return work(this.local);
  }

  private down(error: unknown): void {
    if (this.outage) return;
    this.outage = true;
    this.report(`[gateway] runs: Redis unusable (${error instanceof Error ? error.message : String(error)}); each replica counts runs alone until it is back`);
  }
}
