import type { BudgetPeriodSpec } from "../records/budget.ts";
import { addDays, startOfLocalDay, wallClock, weekday, type LocalDate } from "../lib/zoned-time.ts";

/** The period of a budget a moment falls in. */
export interface PeriodBounds {
  /**
   * The key of the period's spend in the counters and the store: the period's start as ISO UTC
   * for a calendar period, `none` for a budget that never resets, `rolling` for a rolling window
   * (whose spend is kept per bucket, see `rolling`).
   */
  start: string;
  /** Epoch ms of a calendar period's start (null otherwise): forecasts measure the elapsed part. */
  startMs: number | null;
  /** When a calendar period ends and spend starts again from 0; null for the others. */
  resetsAt: Date | null;
  rolling: RollingWindow | null;
}

/**
 * A rolling window's buckets: spend settles into the bucket of the moment it settles, and the
 * window counts the buckets from `cutMs` on, the current one included. With `ROLLING_BUCKETS`
 * buckets per window plus the one the window's start falls in, it counts the spend of at least
 * the last window and at most one bucket more: never less than the window's.
 */
export interface RollingWindow {
  windowMs: number;
  bucketMs: number;
  /** Start of the bucket settles go to now. */
  bucketStartMs: number;
  /** Start of the oldest bucket counted. */
  cutMs: number;
}

/** Buckets a rolling window is cut into: spend leaves the window in steps of a 60th of it. */
export const ROLLING_BUCKETS = 60;
export const NO_PERIOD_KEY = "none";
export const ROLLING_PERIOD_KEY = "rolling";
/** The store keeps a rolling budget's spend per bucket, keyed `r:<bucket start ISO>`. */
export const ROLLING_ROW_PREFIX = "r:";

const HOUR_MS = 3_600_000;

/** The period of `spec` containing `nowMs`. Pure; never throws for a known time zone. */
export function periodBounds(spec: BudgetPeriodSpec, nowMs: number): PeriodBounds {
  if (spec.type === "none") return { start: NO_PERIOD_KEY, startMs: null, resetsAt: null, rolling: null };
  if (spec.type === "rolling") return { start: ROLLING_PERIOD_KEY, startMs: null, resetsAt: null, rolling: rollingWindow(spec, nowMs) };
  const today = localDate(nowMs, spec.timeZone);
  let first: LocalDate;
  let next: LocalDate;
  if (spec.unit === "day") {
    first = today;
    next = addDays(today, 1);
  } else if (spec.unit === "week") {
    const startDay = spec.weekStart === "sunday" ? 0 : 1;
    first = addDays(today, -((weekday(today) - startDay + 7) % 7));
    next = addDays(first, 7);
  } else {
    first = { year: today.year, month: today.month, day: 1 };
    next = today.month === 12 ? { year: today.year + 1, month: 1, day: 1 } : { year: today.year, month: today.month + 1, day: 1 };
  }
  const startMs = startOfLocalDay(first, spec.timeZone);
  return { start: new Date(startMs).toISOString(), startMs, resetsAt: new Date(startOfLocalDay(next, spec.timeZone)), rolling: null };
}

/** A rolling window's length in ms. */
export function rollingWindowMs(spec: Extract<BudgetPeriodSpec, { type: "rolling" }>): number {
  return spec.count * (spec.unit === "day" ? 24 : 1) * HOUR_MS;
}

function rollingWindow(spec: Extract<BudgetPeriodSpec, { type: "rolling" }>, nowMs: number): RollingWindow {
  const windowMs = rollingWindowMs(spec);
  const bucketMs = windowMs / ROLLING_BUCKETS;
  const bucketStartMs = nowMs - (nowMs % bucketMs);
  return { windowMs, bucketMs, bucketStartMs, cutMs: bucketStartMs - ROLLING_BUCKETS * bucketMs };
}

/** The bucket a rolling budget's spend settles into at `nowMs`, and the oldest bucket its window counts then. */
export function settleBucket(rolling: RollingWindow, nowMs: number): { bucketStartMs: number; cutMs: number } {
  const bucketStartMs = nowMs - (nowMs % rolling.bucketMs);
  return { bucketStartMs, cutMs: bucketStartMs - ROLLING_BUCKETS * rolling.bucketMs };
}

function localDate(nowMs: number, zone: string): LocalDate {
  const wall = wallClock(nowMs, zone);
  return { year: wall.year, month: wall.month, day: wall.day };
}

/** The store's period key of a rolling bucket. */
export function rollingRowKey(bucketStartMs: number): string {
  return `${ROLLING_ROW_PREFIX}${new Date(bucketStartMs).toISOString()}`;
}

/** The bucket start a stored rolling row names; null for any other row. */
export function rollingRowBucket(periodStart: string): number | null {
  if (!periodStart.startsWith(ROLLING_ROW_PREFIX)) return null;
  const ms = Date.parse(periodStart.slice(ROLLING_ROW_PREFIX.length));
  return Number.isFinite(ms) ? ms : null;
}

/** The longest a period can have begun before now (a month, plus a day of time zones): stored spend older than this is not loaded. */
export const LONGEST_PERIOD_MS = 33 * 86_400_000;

/**
 * Calendar bounds of a budget, computed once per period: while `nowMs` stays in the last
 * bounds, they are reused (time zone arithmetic runs only at a period's change). Keyed by the
 * period object, which the budget cache keeps until the budget changes.
 */
export class PeriodCache {
  private readonly last = new WeakMap<BudgetPeriodSpec, PeriodBounds>();

  bounds(spec: BudgetPeriodSpec, nowMs: number): PeriodBounds {
    if (spec.type !== "calendar") return periodBounds(spec, nowMs);
    const kept = this.last.get(spec);
    if (kept && kept.startMs !== null && kept.resetsAt && nowMs >= kept.startMs && nowMs < kept.resetsAt.getTime()) return kept;
    const bounds = periodBounds(spec, nowMs);
    this.last.set(spec, bounds);
    return bounds;
  }
}
