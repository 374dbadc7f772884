import { randomUUID } from "node:crypto";
import { GatewayError } from "../errors.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { SpendKeyKind } from "../store/spend-repository.ts";
import type { MemoryCounters } from "./memory-counters.ts";
import { budgetKey, windowKey, type MeteredBudget, type MeterPlan, type RaiseEntry, type ReserveOutcome, type SettleOutcome, type SpendCounters, type Usage } from "./meter-plan.ts";
import { UnseededRedisError, type RedisCounters } from "./redis-counters.ts";
import type { SpendFallbackStats } from "../telemetry/spend-stats.ts";

export type { SpendFallbackStats };

export type FailurePolicy = "open" | "closed";


export interface FailoverCountersOptions {
  redis: SharedRedis | null;
  shared: RedisCounters | null;
  local: MemoryCounters;
  policy: FailurePolicy;
  /** The settled spend the store records for the current periods (pending spend written first). */
  storedSpend?: () => Promise<RaiseEntry[]>;
  report?: (line: string) => void;
  now?: () => number;
}

/** How long one replica may hold the seeding lock before another takes over (it died seeding). */
const SEEDING_LOCK_MS = 15_000;
/** How soon a replica tries again to have an emptied Redis seeded, while it meters alone. */
const RESEED_RETRY_MS = 200;
/** Last shared values kept at most; past it, those of ended windows and periods are dropped. */
const MAX_REMEMBERED = 100_000;

/**
 * Chooses where counters live for each call: Redis when configured, reachable and seeded, else
 * the process's own under `GATEWAY_REDIS_FAILURE_POLICY` — `open` meters in process (one line
 * in the gateway's log per outage), `closed` refuses with 503. Never throws.
 *
 * Spend is never lost to Redis: the store is the record, Redis the fast shared counter. Every
 * value Redis answers is remembered (the last shared value of each budget and window). Metering
 * alone, the process first raises its own counters to those values, so it goes on from what was
 * counted, not from zero. A Redis that answers without its epoch marker has lost its data: each
 * replica hands it what it last saw and what it counted alone (a raise, never a lower), one
 * replica (under a lock, `SET NX`) seeds every period's spend from the store and sets the
 * marker, and until then every replica meters alone.
 */
export class FailoverCounters {
  private outage = false;
  private readonly lastShared = new Map<string, RaiseEntry>();
  private reseeding: Promise<void> | null = null;
  private reseedTriedAt = Number.NEGATIVE_INFINITY;
  private readonly owner = randomUUID();
  private readonly report: (line: string) => void;
  private readonly now: () => number;
  private readonly stats = { localFromLastShared: 0, localFromOwnCounts: 0, reseeds: 0 };

  constructor(private readonly options: FailoverCountersOptions) {
    this.report = options.report ?? ((line) => console.error(line));
    this.now = options.now ?? Date.now;
  }

  get fallbackStats(): SpendFallbackStats {
    return { shared: this.options.shared !== null && !this.outage, ...this.stats };
  }

  /** The counters that admitted (or refused) the request with the outcome; settle on the same ones. */
  async reserve(plan: MeterPlan): Promise<{ counters: SpendCounters; outcome: ReserveOutcome } | GatewayError> {
    const { shared, redis, local } = this.options;
    if (shared && redis?.available) {
      try {
        const outcome = await shared.reserve(plan);
        this.remember(plan, outcome);
        this.recovered();
        return { counters: shared, outcome };
      } catch (error) {
        this.down(error);
        if (error instanceof UnseededRedisError) this.reseed();
      }
    } else if (shared) this.down(null);
    if (shared && this.options.policy === "closed") {
      return new GatewayError(
        "service_unavailable",
        "Budgets and rate limits are shared through Redis, which cannot be reached or is being seeded again; the gateway refuses metered requests meanwhile (GATEWAY_REDIS_FAILURE_POLICY=closed).",
      );
    }
    if (shared) await this.startFromLastShared(plan);
    return { counters: local, outcome: await local.reserve(plan) };
  }

  /** Settles on the counters that reserved; if those are Redis and it is gone, in process instead. */
  async settle(counters: SpendCounters, plan: MeterPlan, usage: readonly Usage[]): Promise<SettleOutcome> {
    const { local } = this.options;
    if (counters === local) return local.settle(plan, usage);
    try {
      const outcome = await counters.settle(plan, usage);
      for (const [index, key] of plan.keys.entries()) {
        const settled = outcome[index];
        if (key.budget && settled) this.rememberOne(budgetKey(key.kind, key.id, key.budget.periodStart), "spent", settled.afterUnits, spentDropAt(key.budget, this.now()));
      }
      return outcome;
    } catch (error) {
      this.down(error);
      await this.startFromLastShared(plan);
      return local.settle(plan, usage);
    }
  }

  /** Settled spend for a view: from Redis when reachable and seeded, else this process's counters (from the last shared values). */
  async spent(kind: SpendKeyKind, id: string, periodStart: string, rollingCutMs?: number): Promise<number> {
    const { shared, redis, local } = this.options;
    if (shared && redis?.available) {
      try {
        return await shared.spent(kind, id, periodStart, rollingCutMs);
      } catch (error) {
        this.down(error);
        if (error instanceof UnseededRedisError) this.reseed();
      }
    }
    const key = budgetKey(kind, id, periodStart);
    const seen = this.lastShared.get(key);
    const last = seen && (seen.dropAtMs === null || seen.dropAtMs > this.now()) ? seen.value : 0;
    return Math.max(await local.spent(kind, id, periodStart, rollingCutMs), last);
  }

  /** Startup: the store's spend into both counters, and the epoch marker when Redis has none yet. */
  async seed(rows: Parameters<SpendCounters["seed"]>[0]): Promise<void> {
    const { shared, redis, local } = this.options;
    await local.seed(rows);
    if (!shared || !redis?.available) return;
    try {
      await shared.seed(rows);
      await shared.markSeeded(this.owner, true);
    } catch (error) {
      this.down(error);
    }
  }

  /** Resolves once a re-seeding started by this replica is over (tests, shutdown). */
  async settled(): Promise<void> {
    await this.reseeding;
  }

  /**
   * Hands an emptied Redis what this replica knows, and seeds it from the store if this replica
   * wins the lock. Runs in the background (the request that found Redis empty meters alone),
   * once at a time and at most every `RESEED_RETRY_MS`. Never throws.
   */
  private reseed(): void {
    const { shared } = this.options;
    if (!shared || this.reseeding || this.now() - this.reseedTriedAt < RESEED_RETRY_MS) return;
    this.reseedTriedAt = this.now();
    this.reseeding = (async () => {
      try {
        await shared.raise(this.known());
        if (!(await shared.lockSeeding(this.owner, SEEDING_LOCK_MS))) return;
        try {
          const stored = (await this.options.storedSpend?.()) ?? [];
          // Again, now with the store's figures: what was counted meanwhile is not lost either.
          await shared.raise([...stored, ...this.known()]);
          await shared.markSeeded(this.owner);
          this.stats.reseeds++;
          this.report(`[gateway] spend: Redis had lost its counters; seeded ${stored.length} budget periods from the store and the replicas' last counts`);
        } finally {
          await shared.unlockSeeding(this.owner);
        }
      } catch (error) {
        this.down(error);
      } finally {
        this.reseeding = null;
      }
    })();
  }

  /** The last shared values, raised by what this process counted alone since. */
  private known(): RaiseEntry[] {
    const merged = new Map<string, RaiseEntry>(this.lastShared);
    for (const entry of this.options.local.snapshot()) {
      const seen = merged.get(entry.key);
      if (!seen || entry.value > seen.value) merged.set(entry.key, entry);
    }
    return [...merged.values()];
  }

  /** Before metering a plan alone: its keys' counters go on from the last shared values. */
  private async startFromLastShared(plan: MeterPlan): Promise<void> {
    const entries: RaiseEntry[] = [];
    for (const key of plan.keys) {
      if (key.budget) this.pick(entries, budgetKey(key.kind, key.id, key.budget.periodStart));
      for (const slot of key.windows) {
        this.pick(entries, windowKey(key.kind, key.id, slot, "req"));
        this.pick(entries, windowKey(key.kind, key.id, slot, "tok"));
      }
    }
    if (entries.length > 0) this.stats.localFromLastShared++;
    else this.stats.localFromOwnCounts++;
    await this.options.local.raise(entries);
  }

  private pick(entries: RaiseEntry[], key: string): void {
    const seen = this.lastShared.get(key);
    if (seen) entries.push(seen);
  }

  private remember(plan: MeterPlan, outcome: ReserveOutcome): void {
    for (const [index, key] of plan.keys.entries()) {
      const counts = outcome.counts[index];
      if (!counts) continue;
      if (key.budget) this.rememberOne(budgetKey(key.kind, key.id, key.budget.periodStart), "spent", counts.spentUnits, spentDropAt(key.budget, plan.nowMs));
      for (const [slotIndex, slot] of key.windows.entries()) {
        const [requests, tokens] = counts.windows[slotIndex] ?? [0, 0];
        this.rememberOne(windowKey(key.kind, key.id, slot, "req"), null, requests, slot.endMs);
        this.rememberOne(windowKey(key.kind, key.id, slot, "tok"), null, tokens, slot.endMs);
      }
    }
  }

  private rememberOne(key: string, field: RaiseEntry["field"], value: number, dropAtMs: number | null): void {
    if (value <= 0) return;
    const seen = this.lastShared.get(key);
    // A rolling window's total may fall as spend ages out: the newest reading replaces the last.
    if (seen && seen.value >= value && !(seen.field === "spent" && dropAtMs !== null && seen.dropAtMs !== null && dropAtMs > seen.dropAtMs && seen.dropAtMs <= this.now())) return;
    this.lastShared.set(key, { key, field, value, dropAtMs });
    if (this.lastShared.size > MAX_REMEMBERED) {
      const now = this.now();
      for (const [each, entry] of this.lastShared) if (entry.dropAtMs !== null && entry.dropAtMs <= now) this.lastShared.delete(each);
    }
  }

  private down(error: unknown): void {
    if (this.outage) return;
    this.outage = true;
    const reason = error instanceof Error ? ` (${error.message})` : "";
    this.report(
      this.options.policy === "open"
        ? `[gateway] spend: Redis unusable${reason}; budgets and rate limits are enforced by each replica alone, from the last shared counts, until it is back (GATEWAY_REDIS_FAILURE_POLICY=open)`
        : `[gateway] spend: Redis unusable${reason}; metered requests answer 503 until it is back (GATEWAY_REDIS_FAILURE_POLICY=closed)`,
    );
  }

  private recovered(): void {
    if (!this.outage) return;
    this.outage = false;
    this.report("[gateway] spend: Redis reachable again; budgets and rate limits are shared");
    // What this replica counted alone goes to the shared counters (a raise: never double).
    void this.options.shared
      ?.raise(this.options.local.snapshot())
      .catch((error: unknown) => this.down(error));
  }
}

/**
 * Until when a budget's last shared spend counts: a calendar period's end (never, for none); a
 * rolling window's total, one window from when it was read (by then all of it has aged out).
 */
function spentDropAt(budget: MeteredBudget, nowMs: number): number | null {
  if (budget.rolling) return nowMs + budget.rolling.windowMs;
  return budget.resetsAt?.getTime() ?? null;
}
