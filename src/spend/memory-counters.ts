import {
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
  spent: number;
  /** Reservation id → units, with its expiry. */
  reservations: Map<string, { units: number; expiresAtMs: number }>;
  /** When the period ends; the state is dropped after. Infinity for period none. */
  dropAtMs: number;
}

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
        const state = this.budget(budgetKey(key.kind, key.id, key.budget.periodStart), key.budget.resetsAt);
        for (const [id, reservation] of state.reservations) if (reservation.expiresAtMs <= plan.nowMs) state.reservations.delete(id);
        count.spentUnits = state.spent;
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
        const state = this.budget(budgetKey(key.kind, key.id, key.budget.periodStart), key.budget.resetsAt);
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
      const state = this.budget(budgetKey(key.kind, key.id, key.budget.periodStart), key.budget.resetsAt);
      state.reservations.delete(plan.reservationId);
      const beforeUnits = state.spent;
      state.spent += used.units;
      return { beforeUnits, afterUnits: state.spent };
    });
    return Promise.resolve(outcome);
  }

  spent(kind: Parameters<SpendCounters["spent"]>[0], id: string, periodStart: string): Promise<number> {
    return Promise.resolve(this.budgets.get(budgetKey(kind, id, periodStart))?.spent ?? 0);
  }

  seed(rows: Parameters<SpendCounters["seed"]>[0]): Promise<void> {
    for (const row of rows) {
      const state = this.budget(budgetKey(row.kind, row.id, row.periodStart), row.resetsAt);
      state.spent = Math.max(state.spent, row.units);
    }
    return Promise.resolve();
  }

  raise(entries: readonly RaiseEntry[]): Promise<void> {
    const now = this.now();
    for (const entry of entries) {
      if (entry.dropAtMs !== null && entry.dropAtMs <= now) continue;
      if (entry.field === "spent") {
        const state = this.budget(entry.key, entry.dropAtMs === null ? null : new Date(entry.dropAtMs));
        state.spent = Math.max(state.spent, entry.value);
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
      if (state.dropAtMs > now && state.spent > 0) entries.push({ key, field: "spent", value: state.spent, dropAtMs: Number.isFinite(state.dropAtMs) ? state.dropAtMs : null });
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

  private budget(key: string, resetsAt: Date | null): BudgetState {
    let state = this.budgets.get(key);
    if (!state) {
      state = { spent: 0, reservations: new Map(), dropAtMs: resetsAt ? resetsAt.getTime() : Number.POSITIVE_INFINITY };
      this.budgets.set(key, state);
    }
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
    for (const [key, state] of this.budgets) if (state.dropAtMs <= now) this.budgets.delete(key);
  }
}

function sum(reservations: BudgetState["reservations"]): number {
  let total = 0;
  for (const reservation of reservations.values()) total += reservation.units;
  return total;
}
