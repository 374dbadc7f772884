import type { Redis } from "ioredis";
import { RAISE_SCRIPT, RESERVE_SCRIPT, SETTLE_SCRIPT, SPEND_EPOCH_KEY, SPEND_SEEDING_LOCK_KEY, UNLOCK_SCRIPT } from "../shared-state/spend-scripts.ts";
import type { SpendKeyKind } from "../store/spend-repository.ts";
import { settleBucket, type RollingWindow } from "./periods.ts";
import {
  bucketOf,
  budgetKey,
  windowKey,
  type KeyCounts,
  type MeterPlan,
  type RaiseEntry,
  type Refusal,
  type ReserveOutcome,
  type SettleOutcome,
  type SpendCounters,
  type Usage,
} from "./meter-plan.ts";

/** The commands `defineCommand` adds (EVALSHA, falling back to EVAL once per connection). */
interface SpendScripts {
  gatewaySpendReserve(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string>;
  gatewaySpendSettle(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string>;
  gatewaySpendRaise(numberOfKeys: number, ...keysAndArgs: string[]): Promise<number>;
  gatewaySpendUnlock(key: string, owner: string): Promise<number>;
}

/** Redis answered, but holds no spend epoch: it lost its counters, which must be seeded again first. */
export class UnseededRedisError extends Error {
  constructor() {
    super("Redis holds no spend epoch (restarted empty or flushed); its counters are seeded again from the store first");
    this.name = "UnseededRedisError";
  }
}

/** Raise entries per script call: a bounded number of keys per atomic run. */
const RAISE_BATCH = 500;

/** Budget state outlives its period by a day, so a late settle still finds its reservation. */
const BUDGET_TTL_MARGIN_MS = 86_400_000;

/** Counters in Redis, shared by every replica connected to it. Rejects when Redis does. */
export class RedisCounters implements SpendCounters {
  private readonly scripts: SpendScripts;

  constructor(private readonly client: Redis) {
    client.defineCommand("gatewaySpendReserve", { lua: RESERVE_SCRIPT });
    client.defineCommand("gatewaySpendSettle", { lua: SETTLE_SCRIPT });
    client.defineCommand("gatewaySpendRaise", { lua: RAISE_SCRIPT });
    client.defineCommand("gatewaySpendUnlock", { numberOfKeys: 1, lua: UNLOCK_SCRIPT });
    this.scripts = client as unknown as SpendScripts;
  }

  /** Rejects with `UnseededRedisError` when Redis lost its counters (no epoch marker). */
  async reserve(plan: MeterPlan): Promise<ReserveOutcome> {
    const keys = [SPEND_EPOCH_KEY, ...keysOf(plan)];
    const argument = {
      id: plan.reservationId,
      now: plan.nowMs,
      exp: plan.expiresAtMs,
      keys: plan.keys.map((key) => ({
        // Absent, not null: cjson decodes null as a userdata value, which Lua counts as true.
        b: key.budget
          ? {
              limit: key.budget.limitUnits,
              units: key.budget.reserveUnits,
              ttl: budgetTtl(key.budget.resetsAt, key.budget.rolling, plan.nowMs),
              cut: key.budget.rolling?.cutMs,
            }
          : undefined,
        w: key.windows.map((slot) => ({ rl: slot.requestLimit ?? 0, tl: slot.tokenLimit ?? 0, ttl: slot.endMs - plan.nowMs + 1_000 })),
      })),
    };
    const reply = JSON.parse(await this.scripts.gatewaySpendReserve(keys.length, ...keys, JSON.stringify(argument))) as {
      unseeded?: boolean;
      refusal?: [number, "budget" | "requests" | "tokens", number];
      counts: { s: number; r: number; w: unknown }[];
    };
    if (reply.unseeded) throw new UnseededRedisError();
    const counts: KeyCounts[] = reply.counts.map((count) => ({
      spentUnits: count.s,
      reservedUnits: count.r,
      // cjson writes an empty Lua table as {}, not [].
      windows: Array.isArray(count.w) ? (count.w as [number, number][]) : [],
    }));
    return { refusal: reply.refusal ? refusalOf(reply.refusal) : null, counts };
  }

  async settle(plan: MeterPlan, usage: readonly Usage[]): Promise<SettleOutcome> {
    const keys = keysOf(plan);
    const now = Date.now();
    const argument = {
      id: plan.reservationId,
      keys: plan.keys.map((key, index) => {
        const used = usage[index] ?? { units: 0, tokens: 0 };
        // A rolling budget's spend goes to the bucket of the moment it settles.
        const rolling = key.budget?.rolling ? settleBucket(key.budget.rolling, now) : null;
        return {
          b: key.budget ? { used: used.units, ttl: budgetTtl(key.budget.resetsAt, key.budget.rolling, now), cut: rolling?.cutMs, bucket: rolling?.bucketStartMs } : undefined,
          w: key.windows.map((slot) => ({ tl: slot.tokenLimit ?? 0, used: used.tokens, ttl: Math.max(1_000, slot.endMs - Date.now() + 1_000) })),
        };
      }),
    };
    const reply = JSON.parse(await this.scripts.gatewaySpendSettle(keys.length, ...keys, JSON.stringify(argument))) as unknown;
    const entries = Array.isArray(reply) ? reply : [];
    return plan.keys.map((_, index) => {
      const entry: unknown = entries[index];
      return Array.isArray(entry) ? { beforeUnits: Number(entry[0]), afterUnits: Number(entry[1]) } : null;
    });
  }

  /** Rejects with `UnseededRedisError` when Redis lost its counters. */
  async spent(kind: SpendKeyKind, id: string, periodStart: string, rollingCutMs?: number): Promise<number> {
    const key = budgetKey(kind, id, periodStart);
    if (rollingCutMs !== undefined) {
      const [epoch, fields] = await Promise.all([this.client.get(SPEND_EPOCH_KEY), this.client.hgetall(key)]);
      if (epoch === null) throw new UnseededRedisError();
      let total = 0;
      for (const [field, value] of Object.entries(fields)) {
        const bucket = bucketOf(field);
        if (bucket !== null && bucket >= rollingCutMs) total += Number(value);
      }
      return total;
    }
    const [epoch, spent] = await Promise.all([this.client.get(SPEND_EPOCH_KEY), this.client.hget(key, "spent")]);
    if (epoch === null) throw new UnseededRedisError();
    return Number(spent ?? 0);
  }

  async seed(entries: readonly RaiseEntry[]): Promise<void> {
    await this.raise(entries);
  }

  async raise(entries: readonly RaiseEntry[]): Promise<void> {
    const now = Date.now();
    for (let start = 0; start < entries.length; start += RAISE_BATCH) {
      const batch = entries.slice(start, start + RAISE_BATCH);
      const argument = batch.map((entry) => ({
        f: entry.field ?? undefined,
        v: entry.value,
        // Budget state outlives its period by a day, as the reserve script keeps it.
        ttl: entry.dropAtMs === null ? 0 : Math.max(1, entry.dropAtMs - now + (entry.field === null ? 1_000 : BUDGET_TTL_MARGIN_MS)),
      }));
      await this.scripts.gatewaySpendRaise(batch.length, ...batch.map((entry) => entry.key), JSON.stringify(argument));
    }
  }

  /** Marks the counters as seeded from the store (the epoch marker); `onlyIfMissing` leaves a set marker alone. */
  async markSeeded(epoch: string, onlyIfMissing = false): Promise<void> {
    if (onlyIfMissing) await this.client.set(SPEND_EPOCH_KEY, epoch, "NX");
    else await this.client.set(SPEND_EPOCH_KEY, epoch);
  }

  /** Takes the seeding lock for `ttlMs`; true when this caller holds it. */
  async lockSeeding(owner: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(SPEND_SEEDING_LOCK_KEY, owner, "PX", ttlMs, "NX")) === "OK";
  }

  async unlockSeeding(owner: string): Promise<void> {
    await this.scripts.gatewaySpendUnlock(SPEND_SEEDING_LOCK_KEY, owner);
  }
}

function keysOf(plan: MeterPlan): string[] {
  const keys: string[] = [];
  for (const key of plan.keys) {
    if (key.budget) {
      const hash = budgetKey(key.kind, key.id, key.budget.periodStart);
      keys.push(hash, `${hash}:reservations`);
    }
    for (const slot of key.windows) keys.push(windowKey(key.kind, key.id, slot, "req"), windowKey(key.kind, key.id, slot, "tok"));
  }
  return keys;
}

/** A calendar budget's state outlives its period by a margin; a rolling one its window; none is kept for ever. */
function budgetTtl(resetsAt: Date | null, rolling: RollingWindow | null, nowMs: number): number {
  if (rolling) return rolling.windowMs + rolling.bucketMs + BUDGET_TTL_MARGIN_MS;
  return resetsAt ? Math.max(1, resetsAt.getTime() - nowMs + BUDGET_TTL_MARGIN_MS) : 0;
}

function refusalOf([keyIndex, reason, windowIndex]: [number, "budget" | "requests" | "tokens", number]): Refusal {
  return reason === "budget" ? { keyIndex, reason } : { keyIndex, reason, windowIndex };
}
