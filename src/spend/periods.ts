import type { BudgetPeriod } from "../records/control-plane.ts";

/** The budget period a moment falls in: its UTC start (`none` for a budget that never resets) and end. */
export interface PeriodBounds {
  /** ISO start of the period, the key of its spend; `none` for period none. */
  start: string;
  /** When the period ends and spend starts again from 0; null for period none. */
  resetsAt: Date | null;
}

const DAY_MS = 86_400_000;

/**
 * The UTC period containing `now`: a day starts at 00:00 UTC, a week on Monday 00:00 UTC (ISO
 * weeks), a month on its first day 00:00 UTC. Pure; never throws for a valid date.
 */
export function periodBounds(period: BudgetPeriod, now: Date): PeriodBounds {
  if (period === "none") return { start: "none", resetsAt: null };
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (period === "daily") return bounds(day, day + DAY_MS);
  if (period === "weekly") {
    // getUTCDay: Sunday 0 … Saturday 6; an ISO week starts on Monday.
    const monday = day - ((now.getUTCDay() + 6) % 7) * DAY_MS;
    return bounds(monday, monday + 7 * DAY_MS);
  }
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return bounds(first, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

function bounds(startMs: number, endMs: number): PeriodBounds {
  return { start: new Date(startMs).toISOString(), resetsAt: new Date(endMs) };
}

/** The starts of every period current at `now`, to load their settled spend at startup. */
export function currentPeriodStarts(now: Date): string[] {
  return (["none", "daily", "weekly", "monthly"] as const).map((period) => periodBounds(period, now).start);
}
