import type { GatewayConfig } from "../config.ts";
import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { Store } from "../store/open-store.ts";
import { buildBudgetIndex, type BudgetIndex } from "./budget-index.ts";
import { toUnits } from "./estimate.ts";
import { FailoverCounters, type SpendFallbackStats } from "./failover-counters.ts";
import { bucketField, budgetKey, type RaiseEntry } from "./meter-plan.ts";
import { MemoryCounters } from "./memory-counters.ts";
import { LONGEST_PERIOD_MS, ROLLING_PERIOD_KEY, rollingRowBucket } from "./periods.ts";
import { RedisCounters } from "./redis-counters.ts";
import { SpendFlusher } from "./spend-flusher.ts";
import { SpendMeter, type ThresholdCrossing } from "./spend-meter.ts";

/** How long past the request timeout a reservation is kept before it counts as abandoned. */
const RESERVATION_GRACE_MS = 5 * 60_000;

export interface OpenedSpendMeter {
  meter: SpendMeter;
  /** A workspace's budgets, as the request path reads them (the control-plane cache, kind `budgets`). */
  budgets(workspaceId: string): BudgetIndex | Promise<BudgetIndex>;
  /** For the metrics: whether counters are shared now, and how this replica metered alone. */
  fallbackStats(): SpendFallbackStats;
  /** Writes settled spend still waiting and stops the timers. */
  close(): Promise<void>;
}

/**
 * A workspace's budgets through the control-plane cache (kind `budgets`, key `*`): the request
 * path reads the store at most once per workspace and TTL, and every budget write (and every
 * change of a key's own limits) forgets the entry here and, through Redis, on every replica.
 */
export function workspaceBudgets(deps: { controlPlane: ControlPlaneCache; store: Pick<Store, "budgets"> }, workspaceId: string): BudgetIndex | Promise<BudgetIndex> {
  // Fresh in the cache (as nearly always): no promise at all on the request path.
  return (
    deps.controlPlane.peek<BudgetIndex>("budgets", workspaceId, "*") ??
    deps.controlPlane.get("budgets", workspaceId, "*", async () => buildBudgetIndex(await deps.store.budgets.list(workspaceId)))
  );
}

/**
 * Builds the spend meter: counters in Redis when `GATEWAY_REDIS_URL` is set (in process when
 * not, or when Redis is down under the open policy), spend persisted in batches, and the
 * settled spend of the periods that may be current loaded from the store at start (so a
 * restart, or a new replica, starts from what was spent) and again whenever Redis is found
 * emptied (off the request path). A store or Redis that fails here is reported, not fatal.
 */
export async function openSpendMeter(deps: {
  config: GatewayConfig;
  store: Store;
  redis: SharedRedis | null;
  controlPlane: ControlPlaneCache;
  onThresholdCrossed?: (crossing: ThresholdCrossing) => void;
}): Promise<OpenedSpendMeter> {
  const { config, store, redis } = deps;
  const local = new MemoryCounters();
  const flusher = new SpendFlusher(store.spend, config.GATEWAY_SPEND_FLUSH_INTERVAL_MS);
  const storedSpend = async (): Promise<RaiseEntry[]> => {
    const since = new Date(Date.now() - LONGEST_PERIOD_MS).toISOString();
    return (await store.spend.current(since)).map((row): RaiseEntry => {
      const bucket = rollingRowBucket(row.periodStart);
      if (bucket !== null) return { key: budgetKey(row.keyKind, row.keyId, ROLLING_PERIOD_KEY), field: bucketField(bucket), value: toUnits(row.spentUsd), dropAtMs: bucket + LONGEST_PERIOD_MS };
      const dropAtMs = row.periodStart === "none" ? null : Date.parse(row.periodStart) + LONGEST_PERIOD_MS;
      return { key: budgetKey(row.keyKind, row.keyId, row.periodStart), field: "spent", value: toUnits(row.spentUsd), dropAtMs };
    });
  };
  const counters = new FailoverCounters({
    redis,
    shared: redis ? new RedisCounters(redis.client) : null,
    local,
    policy: config.GATEWAY_REDIS_FAILURE_POLICY,
    // This replica's pending spend first, so the store holds all it settled.
    storedSpend: async () => {
      await flusher.flush();
      return storedSpend();
    },
  });
  try {
    await counters.seed(await storedSpend());
  } catch (error) {
    console.error(`[gateway] spend: could not load settled spend at startup (${error instanceof Error ? error.message : String(error)})`);
  }
  const budgets = (workspaceId: string) => workspaceBudgets(deps, workspaceId);
  const meter = new SpendMeter({
    counters,
    flusher,
    budgets,
    defaultMaxTokens: config.GATEWAY_SPEND_DEFAULT_MAX_TOKENS,
    reservationTtlMs: config.GATEWAY_REQUEST_TIMEOUT_MS + RESERVATION_GRACE_MS,
    onThresholdCrossed: deps.onThresholdCrossed,
  });
  return {
    meter,
    budgets,
    fallbackStats: () => counters.fallbackStats,
    close: async () => {
      await counters.settled();
      local.close();
      await flusher.close();
    },
  };
}
