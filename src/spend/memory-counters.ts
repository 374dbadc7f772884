import { settleBucket } from "./periods.ts";
import {
  bucketField,
  bucketOf,
  budgetKey,
  windowKey,
  type KeyCounts,
  type MeterPlan,
  type RaiseEntry,
  type ReserveOutcome,
  type SettleOutcome,
  type SpendCounters,
  type Usage,
} from "./meter-plan.ts";

interface BudgetState {
  /** Settled spend of a calendar period (or none); of a rolling window, a floor: its total as last seen shared, until `floorUntilMs`. */
  spent: number;
  floorUntilMs: number;
  /** A rolling budget's spend per bucket start; null for any other budget. */
  buckets: Map<number, number> | null;
  /** Reservation id → units, with its expiry. */
  reservations: Map<string, { units: number; expiresAtMs: number }>;
  /** When the period ends; the state is dropped after (a rolling one once its buckets and floor are gone). Infinity for period none. */
  dropAtMs: number;
}

/** The oldest a rolling bucket is kept in process (the longest window and a day). */
const MAX_BUCKET_AGE_MS = 32 * 86_400_000;

interface Counter {
  value: number;
  dropAtMs: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters in this process: the embedded default, and the fallback when Redis is down under
 * `GATEWAY_REDIS_FAILURE_POLICY=open`. The same rules as the Redis scripts
 * (`shared-state/spend-scripts.ts`); each call runs to completion without awaiting, so it is
 * atomic within the process.
 */
export class MemoryCounters implements SpendCounters {
  private readonly budgets = new Map<string, BudgetState>();
  private readonly counters = new Map<string, Counter>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  reserve(plan: MeterPlan): Promise<ReserveOutcome> {
    const counts: KeyCounts[] = [];
    let refusal: ReserveOutcome["refusal"] = null;
    for (const [keyIndex, key] of plan.keys.entries()) {
      const count: KeyCounts = { spentUnits: 0, reservedUnits: 0, windows: [] };
      if (key.budget) {
        const state = this.budget(budgetKey(key.kind, key.id, key.budget.periodStart), key.budget.resetsAt, key.budget.rolling !== null);
        for (const [id, reservation] of state.reservations) if (reservation.expiresAtMs <= plan.nowMs) state.reservations.delete(id);
        count.spentUnits = key.budget.rolling ? windowTotal(state, key.budget.rolling.cutMs, plan.nowMs) : state.spent;
        count.reservedUnits = sum(state.reservations);
        if (!refusal && count.spentUnits + count.reservedUnits >= key.budget.limitUnits) refusal = { keyIndex, reason: "budget" };
      }
      for (const [windowIndex, slot] of key.windows.entries()) {
        const requests = this.read(windowKey(key.kind, key.id, slot, "req"));
        const tokens = this.read(windowKey(key.kind, key.id, slot, "tok"));
        count.windows.push([requests, tokens]);
        if (refusal) continue;
        if (slot.requestLimit !== null && requests >= slot.requestLimit) refusal = { keyIndex, reason: "requests", windowIndex };
        else if (slot.tokenLimit !== null && tokens >= slot.tokenLimit) refusal = { keyIndex, reason: "tokens", windowIndex };
      }
      counts.push(count);
    }
    if (refusal) return Promise.resolve({ refusal, counts });
    for (const [keyIndex, key] of plan.keys.entries()) {
      const count = counts[keyIndex]!;
      if (key.budget && key.budget.reserveUnits > 0) {
        const state = this.budget(budgetKey(key.kind, key.id, key.budget.periodStart), key.budget.resetsAt, key.budget.rolling !== null);
        state.reservations.set(plan.reservationId, { units: key.budget.reserveUnits, expiresAtMs: plan.expiresAtMs });
        count.reservedUnits += key.budget.reserveUnits;
      }
      for (const [windowIndex, slot] of key.windows.entries()) {
        if (slot.requestLimit === null) continue;
        count.windows[windowIndex]![0] = this.add(windowKey(key.kind, key.id, slot, "req"), 1, slot.endMs);
      }
    }
    return Promise.resolve({ refusal: null, counts });
  }

  settle(plan: MeterPlan, usage: readonly Usage[]): Promise<SettleOutcome> {
    const outcome: SettleOutcome = plan.keys.map((key, keyIndex) => {
      const used = usage[keyIndex] ?? { units: 0, tokens: 0 };
      for (const slot of key.windows) {
        if (slot.tokenLimit !== null && used.tokens > 0) this.add(windowKey(key.kind, key.id, slot, "tok"), used.tokens, slot.endMs);
      }
      if (!key.budget) return null;
      const state = this.budget(budgetKey(key.kind, key.id, key.budget.periodStart), key.budget.resetsAt, key.budget.rolling !== null);
      state.reservations.delete(plan.reservationId);
      if (key.budget.rolling) {
        const now = this.now();
        const { bucketStartMs, cutMs } = settleBucket(key.budget.rolling, now);
        const beforeUnits = windowTotal(state, cutMs, now);
        if (used.units > 0) {
          const buckets = state.buckets!;
          buckets.set(bucketStartMs, (buckets.get(bucketStartMs) ?? 0) + used.units);
        }
        return { beforeUnits, afterUnits: beforeUnits + used.units };
      }
      const beforeUnits = state.spent;
      state.spent += used.units;
      return { beforeUnits, afterUnits: state.spent };
    });
    return Promise.resolve(outcome);
  }

  spent(kind: Parameters<SpendCounters["spent"]>[0], id: string, periodStart: string, rollingCutMs?: number): Promise<number> {
    const state = this.budgets.get(budgetKey(kind, id, periodStart));
    if (!state) return Promise.resolve(0);
    return Promise.resolve(rollingCutMs === undefined ? state.spent : windowTotal(state, rollingCutMs, this.now()));
  }

  seed(entries: readonly RaiseEntry[]): Promise<void> {
    return this.raise(entries);
  }

  raise(entries: readonly RaiseEntry[]): Promise<void> {
    const now = this.now();
    for (const entry of entries) {
      if (entry.dropAtMs !== null && entry.dropAtMs <= now) continue;
      const bucket = entry.field === null ? null : bucketOf(entry.field);
      if (bucket !== null) {
        const state = this.budget(entry.key, null, true);
        state.buckets!.set(bucket, Math.max(state.buckets!.get(bucket) ?? 0, entry.value));
      } else if (entry.field === "spent") {
        const state = this.budget(entry.key, entry.dropAtMs === null ? null : new Date(entry.dropAtMs), false);
        if (entry.value >= state.spent) {
          state.spent = entry.value;
          // On a rolling budget the value is a floor, which lasts as long as the value raised to.
          state.floorUntilMs = entry.dropAtMs ?? Number.POSITIVE_INFINITY;
        }
      } else {
        const current = this.read(entry.key);
        if (entry.value > current) this.add(entry.key, entry.value - current, entry.dropAtMs ?? Number.POSITIVE_INFINITY);
      }
    }
    return Promise.resolve();
  }

  /** Every live counter as a raise entry: what this process metered, to hand to shared counters. */
  snapshot(): RaiseEntry[] {
    const now = this.now();
    const entries: RaiseEntry[] = [];
    for (const [key, state] of this.budgets) {
      // A rolling budget's floor is a shared value already, not something counted here.
      if (!state.buckets && state.dropAtMs > now && state.spent > 0) entries.push({ key, field: "spent", value: state.spent, dropAtMs: Number.isFinite(state.dropAtMs) ? state.dropAtMs : null });
      for (const [bucket, value] of state.buckets ?? []) {
        if (value > 0 && bucket + MAX_BUCKET_AGE_MS > now) entries.push({ key, field: bucketField(bucket), value, dropAtMs: bucket + MAX_BUCKET_AGE_MS });
      }
    }
    for (const [key, counter] of this.counters) {
      if (counter.dropAtMs > now && counter.value > 0) entries.push({ key, field: null, value: counter.value, dropAtMs: Number.isFinite(counter.dropAtMs) ? counter.dropAtMs : null });
    }
    return entries;
  }

  /** Stops the sweeper (tests; the timer never keeps a process alive). */
  close(): void {
    clearInterval(this.sweeper);
  }

  private budget(key: string, resetsAt: Date | null, rolling: boolean): BudgetState {
    let state = this.budgets.get(key);
    if (!state) {
      state = { spent: 0, floorUntilMs: 0, buckets: null, reservations: new Map(), dropAtMs: resetsAt ? resetsAt.getTime() : Number.POSITIVE_INFINITY };
      this.budgets.set(key, state);
    }
    if (rolling && !state.buckets) state.buckets = new Map();
    return state;
  }

  private read(key: string): number {
    const counter = this.counters.get(key);
    return counter && counter.dropAtMs > this.now() ? counter.value : 0;
  }

  private add(key: string, amount: number, dropAtMs: number): number {
    const counter = this.counters.get(key);
    if (counter && counter.dropAtMs > this.now()) return (counter.value += amount);
    this.counters.set(key, { value: amount, dropAtMs });
    return amount;
  }

  /** Drops windows and periods that have ended, so memory follows the keys in use, not time. */
  private sweep(): void {
    const now = this.now();
    for (const [key, counter] of this.counters) if (counter.dropAtMs <= now) this.counters.delete(key);
    for (const [key, state] of this.budgets) {
      if (state.buckets) {
        for (const bucket of state.buckets.keys()) if (bucket + MAX_BUCKET_AGE_MS <= now) state.buckets.delete(bucket);
        for (const [id, reservation] of state.reservations) if (reservation.expiresAtMs <= now) state.reservations.delete(id);
        if (state.buckets.size === 0 && state.reservations.size === 0 && state.floorUntilMs <= now) this.budgets.delete(key);
      } else if (state.dropAtMs <= now) this.budgets.delete(key);
    }
  }
}

/** A rolling budget's spend: its buckets from `cutMs` on, or the floor last seen shared while it lasts, whichever is more. */
function windowTotal(state: BudgetState, cutMs: number, nowMs: number): number {
  let total = 0;
  for (const [bucket, value] of state.buckets ?? []) if (bucket >= cutMs) total += value;
  const floor = state.floorUntilMs > nowMs ? state.spent : 0;
  return Math.max(total, floor);
}

function sum(reservations: BudgetState["reservations"]): number {
  let total = 0;
  for (const reservation of reservations.values()) total += reservation.units;
  return total;
}
