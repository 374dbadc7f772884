import type { Redis } from "ioredis";
import { RESERVE_SCRIPT, SEED_SCRIPT, SETTLE_SCRIPT } from "../shared-state/spend-scripts.ts";
import type { SpendKeyKind } from "../store/spend-repository.ts";
import {
  budgetKey,
  windowKey,
  type KeyCounts,
  type MeterPlan,
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
  gatewaySpendSeed(key: string, units: number, ttlMs: number): Promise<number>;
}

/** Budget state outlives its period by a day, so a late settle still finds its reservation. */
const BUDGET_TTL_MARGIN_MS = 86_400_000;

/** Counters in Redis, shared by every replica connected to it. Rejects when Redis does. */
export class RedisCounters implements SpendCounters {
  private readonly scripts: SpendScripts;

  constructor(private readonly client: Redis) {
    client.defineCommand("gatewaySpendReserve", { lua: RESERVE_SCRIPT });
    client.defineCommand("gatewaySpendSettle", { lua: SETTLE_SCRIPT });
    client.defineCommand("gatewaySpendSeed", { numberOfKeys: 1, lua: SEED_SCRIPT });
    this.scripts = client as unknown as SpendScripts;
  }

  async reserve(plan: MeterPlan): Promise<ReserveOutcome> {
    const keys = keysOf(plan);
    const argument = {
      id: plan.reservationId,
      now: plan.nowMs,
      exp: plan.expiresAtMs,
      keys: plan.keys.map((key) => ({
        // Absent, not null: cjson decodes null as a userdata value, which Lua counts as true.
        b: key.budget ? { limit: key.budget.limitUnits, units: key.budget.reserveUnits, ttl: budgetTtl(key.budget.resetsAt, plan.nowMs) } : undefined,
        w: key.windows.map((slot) => ({ rl: slot.requestLimit ?? 0, tl: slot.tokenLimit ?? 0, ttl: slot.endMs - plan.nowMs + 1_000 })),
      })),
    };
    const reply = JSON.parse(await this.scripts.gatewaySpendReserve(keys.length, ...keys, JSON.stringify(argument))) as {
      refusal?: [number, "budget" | "requests" | "tokens", number];
      counts: { s: number; r: number; w: unknown }[];
    };
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
    const argument = {
      id: plan.reservationId,
      keys: plan.keys.map((key, index) => {
        const used = usage[index] ?? { units: 0, tokens: 0 };
        return {
          b: key.budget ? { used: used.units, ttl: budgetTtl(key.budget.resetsAt, plan.nowMs) } : undefined,
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

  async spent(kind: SpendKeyKind, id: string, periodStart: string): Promise<number> {
    return Number((await this.client.hget(budgetKey(kind, id, periodStart), "spent")) ?? 0);
  }

  async seed(rows: Parameters<SpendCounters["seed"]>[0]): Promise<void> {
    const now = Date.now();
    for (const row of rows) {
      await this.scripts.gatewaySpendSeed(budgetKey(row.kind, row.id, row.periodStart), row.units, budgetTtl(row.resetsAt, now));
    }
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

function budgetTtl(resetsAt: Date | null, nowMs: number): number {
  return resetsAt ? Math.max(1, resetsAt.getTime() - nowMs + BUDGET_TTL_MARGIN_MS) : 0;
}

function refusalOf([keyIndex, reason, windowIndex]: [number, "budget" | "requests" | "tokens", number]): Refusal {
  return reason === "budget" ? { keyIndex, reason } : { keyIndex, reason, windowIndex };
}
