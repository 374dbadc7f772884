import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { bucketStart, intervalMs, type AnalyticsInterval } from "./aggregate.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest range: a bit over a year, so "this year against last" fits in daily buckets. */
export const MAX_RANGE_DAYS = 400;
/** The most buckets a time series may have: a chart has no use for more, and each costs a row. */
export const MAX_BUCKETS = 1_500;

/** A resolved analytics range, as ISO instants (`toISOString` form). */
export interface AnalyticsRange {
  from: string;
  to: string;
}

/**
 * `to` defaults to now and `from` to 24 hours before `to`; `from` must come before `to` and the
 * range may be at most 400 days. Inputs are already checked as ISO 8601 date-times.
 */
export function resolveRange(query: { from?: string; to?: string }, now: number = Date.now()): Result<AnalyticsRange> {
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - DAY_MS : Date.parse(query.from);
  if (!(from < to)) return fail(new GatewayError("invalid_request", "from must be before to.", { param: "from" }));
  if (to - from > MAX_RANGE_DAYS * DAY_MS) {
    return fail(new GatewayError("invalid_request", `The range from..to may be at most ${MAX_RANGE_DAYS} days.`, { param: "from" }));
  }
  return ok({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
}

/** The default interval: minutes up to 2 hours, hours up to 7 days, days beyond. */
export function defaultInterval(range: AnalyticsRange): AnalyticsInterval {
  const length = Date.parse(range.to) - Date.parse(range.from);
  if (length <= 2 * HOUR_MS) return "minute";
  if (length <= 7 * DAY_MS) return "hour";
  return "day";
}

/**
 * The UTC-aligned starts of every bucket the range touches, ascending (the first may begin
 * before `from`). More than `MAX_BUCKETS`: a 400 naming `interval`.
 */
export function bucketStarts(range: AnalyticsRange, interval: AnalyticsInterval): Result<string[]> {
  const size = intervalMs(interval);
  const first = bucketStart(Date.parse(range.from), interval);
  const end = Date.parse(range.to);
  const count = Math.ceil((end - first) / size);
  if (count > MAX_BUCKETS) {
    return fail(
      new GatewayError("invalid_request", `The range holds ${count} ${interval} buckets; at most ${MAX_BUCKETS} are allowed: choose a larger interval.`, {
        param: "interval",
      }),
    );
  }
  return ok(Array.from({ length: count }, (_, i) => new Date(first + i * size).toISOString()));
}
