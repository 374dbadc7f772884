import type { SpendKeyKind } from "../store/spend-repository.ts";
import type { RollingWindow } from "./periods.ts";
import type { WindowSlot } from "./windows.ts";

/** One metered counter of a request (a budget, or one member of a budget held per value): what the counters check and change for it. */
export interface MeteredKey {
  kind: SpendKeyKind;
  id: string;
  /** How messages name it: `virtual key "vk-…"`, `gateway key …`, `budget "…" (end user "alice")`. */
  label: string;
  budget: MeteredBudget | null;
  windows: WindowSlot[];
}

export interface MeteredBudget {
  limitUnits: number;
  /** The period's key: its ISO start, `none`, or `rolling` (spend kept per bucket, see `rolling`). */
  periodStart: string;
  resetsAt: Date | null;
  /** A rolling window's buckets; null for a calendar period or none. */
  rolling: RollingWindow | null;
  /** Fractions of the limit whose crossing is reported once per period (ascending). */
  alertThresholds: readonly number[];
  /** What this request reserves (its worst case) and, once settled, releases. */
  reserveUnits: number;
}

/** A request's keys, and its reservation's id and expiry (a replica that dies never settles). */
export interface MeterPlan {
  reservationId: string;
  nowMs: number;
  /** After this the counters drop the reservation as abandoned. */
  expiresAtMs: number;
  keys: MeteredKey[];
}

/** Counts as the counters saw them: spend and reservations in units, windows as [requests, tokens]. */
export interface KeyCounts {
  spentUnits: number;
  reservedUnits: number;
  windows: [requests: number, tokens: number][];
}

export type Refusal = { keyIndex: number; reason: "budget" } | { keyIndex: number; reason: "requests" | "tokens"; windowIndex: number };

/** Counts before the request when refused; after its admission (its own reservation and request included) otherwise. */
export interface ReserveOutcome {
  refusal: Refusal | null;
  counts: KeyCounts[];
}

/** What a request used, per key of its plan (0 for a key whose target was not the one that answered). */
export interface Usage {
  units: number;
  tokens: number;
}

/** Settled spend before and after this settle, per key with a budget (null for keys without one). */
export type SettleOutcome = ({ beforeUnits: number; afterUnits: number } | null)[];

/**
 * Where counters live: in process, or in Redis shared by replicas. `reserve` checks every
 * key and, only if none refuses, counts the request and reserves on every key, atomically.
 * Both reject when the store behind them cannot be reached (the caller applies the failure policy).
 */
export interface SpendCounters {
  reserve(plan: MeterPlan): Promise<ReserveOutcome>;
  settle(plan: MeterPlan, usage: readonly Usage[]): Promise<SettleOutcome>;
  /** Settled spend of a key in a period, in units; of a rolling window, the buckets from `rollingCutMs` on. */
  spent(kind: SpendKeyKind, id: string, periodStart: string, rollingCutMs?: number): Promise<number>;
  /** Raises stored spend to at least these values (startup, from the database). */
  seed(entries: readonly RaiseEntry[]): Promise<void>;
  /** Raises counters to at least these values, never lowers one. */
  raise(entries: readonly RaiseEntry[]): Promise<void>;
}

/**
 * A counter's value to raise to: a budget's settled spend (`field` "spent"), one bucket of a
 * rolling budget (`field` `b:<bucket start ms>`), or a window's count (`field` null). On a
 * rolling budget, "spent" is a floor: the window's total as last seen shared, until `dropAtMs`.
 */
export interface RaiseEntry {
  key: string;
  field: "spent" | BucketField | null;
  value: number;
  /** When the counter's period or window ends (the counter may go then); null: never. */
  dropAtMs: number | null;
}

/** The hash field of a rolling budget's bucket. */
export type BucketField = `b:${number}`;

export function bucketField(bucketStartMs: number): BucketField {
  return `b:${bucketStartMs}`;
}

/** The bucket start a field names; null for any other field. */
export function bucketOf(field: string): number | null {
  if (!field.startsWith("b:")) return null;
  const ms = Number(field.slice(2));
  return Number.isFinite(ms) ? ms : null;
}

/** Redis and memory name counters alike. */
export function budgetKey(kind: SpendKeyKind, id: string, periodStart: string): string {
  return `gw:spend:${kind}:${id}:${periodStart}`;
}

export function windowKey(kind: SpendKeyKind, id: string, slot: WindowSlot, what: "req" | "tok"): string {
  return `gw:rl:${kind}:${id}:${slot.name}:${slot.startMs}:${what}`;
}
