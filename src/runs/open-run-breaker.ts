import type { SharedRedis } from "../shared-state/redis.ts";
import { FailoverRunCounters } from "./failover-run-counters.ts";
import { RedisRunCounters } from "./redis-run-counters.ts";
import { RunBreaker, type RunHalted } from "./run-breaker.ts";
import { MemoryRunCounters } from "./run-counters.ts";

export interface OpenedRunBreaker {
  breaker: RunBreaker;
  close(): void;
}

/** The run breaker: runs counted in Redis when the gateway has it (in process otherwise, or while it is down). */
export function openRunBreaker(deps: { redis: SharedRedis | null; onHalted?: (halted: RunHalted) => void }): OpenedRunBreaker {
  const local = new MemoryRunCounters();
  const counters = new FailoverRunCounters(deps.redis, deps.redis ? new RedisRunCounters(deps.redis.client) : null, local);
  return { breaker: new RunBreaker({ counters, onHalted: deps.onHalted }), close: () => counters.close() };
}
