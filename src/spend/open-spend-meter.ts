import type { GatewayConfig } from "../config.ts";
import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { Store } from "../store/open-store.ts";
import { toUnits } from "./estimate.ts";
import { FailoverCounters, type SpendFallbackStats } from "./failover-counters.ts";
import { budgetKey, type RaiseEntry } from "./meter-plan.ts";
import { virtualKeyLimits } from "./key-limits.ts";
import { MemoryCounters } from "./memory-counters.ts";
import { currentPeriodStarts } from "./periods.ts";
import { RedisCounters } from "./redis-counters.ts";
import { SpendFlusher } from "./spend-flusher.ts";
import { SpendMeter } from "./spend-meter.ts";

/** How long past the request timeout a reservation is kept before it counts as abandoned. */
const RESERVATION_GRACE_MS = 5 * 60_000;
/** The longest period (a month) bounds how long a seeded period is kept in memory. */
const LONGEST_PERIOD_MS = 32 * 86_400_000;

export interface OpenedSpendMeter {
  meter: SpendMeter;
  /** For the metrics: whether counters are shared now, and how this replica metered alone. */
  fallbackStats(): SpendFallbackStats;
  /** Writes settled spend still waiting and stops the timers. */
  close(): Promise<void>;
}

/**
 * Builds the spend meter: counters in Redis when `GATEWAY_REDIS_URL` is set (in process when
 * not, or when Redis is down under the open policy), spend persisted in batches, and the
 * settled spend of the current periods loaded from the store at start (so a restart, or a new
 * replica, starts from what was spent) and again whenever Redis is found emptied (off the
 * request path). A store or Redis that fails here is reported, not fatal.
 */
export async function openSpendMeter(deps: {
  config: GatewayConfig;
  store: Store;
  redis: SharedRedis | null;
  controlPlane: ControlPlaneCache;
}): Promise<OpenedSpendMeter> {
  const { config, store, redis } = deps;
  const local = new MemoryCounters();
  const flusher = new SpendFlusher(store.spend, config.GATEWAY_SPEND_FLUSH_INTERVAL_MS);
  const storedRows = async () =>
    (await store.spend.inPeriods(currentPeriodStarts(new Date()))).map((row) => ({
      kind: row.keyKind,
      id: row.keyId,
      periodStart: row.periodStart,
      units: toUnits(row.spentUsd),
      resetsAt: row.periodStart === "none" ? null : new Date(Date.parse(row.periodStart) + LONGEST_PERIOD_MS),
    }));
  const counters = new FailoverCounters({
    redis,
    shared: redis ? new RedisCounters(redis.client) : null,
    local,
    policy: config.GATEWAY_REDIS_FAILURE_POLICY,
    // This replica's pending spend first, so the store holds all it settled.
    storedSpend: async () => {
      await flusher.flush();
      return (await storedRows()).map(
        (row): RaiseEntry => ({ key: budgetKey(row.kind, row.id, row.periodStart), field: "spent", value: row.units, dropAtMs: row.resetsAt?.getTime() ?? null }),
      );
    },
  });
  try {
    await counters.seed(await storedRows());
  } catch (error) {
    console.error(`[gateway] spend: could not load settled spend at startup (${error instanceof Error ? error.message : String(error)})`);
  }
  const meter = new SpendMeter({
    counters,
    flusher,
    virtualKeyLimits: (workspaceId, id) => virtualKeyLimits(deps, workspaceId, id),
    defaultMaxTokens: config.GATEWAY_SPEND_DEFAULT_MAX_TOKENS,
    reservationTtlMs: config.GATEWAY_REQUEST_TIMEOUT_MS + RESERVATION_GRACE_MS,
  });
  return {
    meter,
    fallbackStats: () => counters.fallbackStats,
    close: async () => {
      await counters.settled();
      local.close();
      await flusher.close();
    },
  };
}
