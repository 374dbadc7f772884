/**
 * Calendar arithmetic in IANA time zones through `Intl.DateTimeFormat` (the runtime's tz
 * database): what a wall clock reads at an instant, and the first instant of a local date.
 * Daylight-saving changes are handled where they bite: a local midnight that does not exist
 * (clocks jump over it) starts its day at the first instant after the gap; one that exists twice
 * starts it at the earlier.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    if (formatters.size > 1_000) formatters.clear();
    formatters.set(zone, found);
  }
  return found;
}

/** Whether the runtime knows `zone` as an IANA time zone (`Europe/Berlin`, `UTC`). Never throws. */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** A local date (month 1–12). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

interface WallClock extends LocalDate {
  hour: number;
  minute: number;
  second: number;
}

/** What a wall clock in `zone` reads at `ms` (to the second). */
export function wallClock(ms: number, zone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at `ms`, in ms (positive east of Greenwich). */
export function offsetAt(ms: number, zone: string): number {
  const wall = wallClock(ms, zone);
  const wallMs = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return wallMs - Math.floor(ms / 1000) * 1000;
}

/** The local date `days` after `date` (negative: before), month and year lengths included. */
export function addDays(date: LocalDate, days: number): LocalDate {
  const ms = Date.UTC(date.year, date.month - 1, date.day + days);
  const moved = new Date(ms);
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/** 0 (Sunday) … 6 (Saturday) of a local date. */
export function weekday(date: LocalDate): number {
  return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

/**
 * The first instant at which a wall clock in `zone` reads `date` 00:00 or later: local midnight,
 * or the end of a daylight-saving gap that swallows it; the earlier of two when clocks pass
 * midnight twice. Assumes at most one offset change within a day of it (as every zone has).
 */
export function startOfLocalDay(date: LocalDate, zone: string): number {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  const early = offsetAt(midnight - DAY_MS, zone);
  const late = offsetAt(midnight + DAY_MS, zone);
  const readsMidnight = (candidate: number) => candidate + offsetAt(candidate, zone) === midnight;
  const candidates = [midnight - early, midnight - late].filter(readsMidnight);
  if (candidates.length > 0) return Math.min(...candidates);
  // A gap: find the instant the offset changes, between the two readings.
  let low = midnight - Math.max(early, late);
  let high = midnight - Math.min(early, late);
  if (low > high) [low, high] = [high, low];
  // Offsets change on whole seconds; search to the second.
  while (high - low > 1000) {
    const middle = Math.floor((low + high) / 2000) * 1000;
    if (offsetAt(middle, zone) === early) low = middle;
    else high = middle;
  }
  return high - (high % 1000);
}

/** How long a local day lasts, for messages and tests (23, 24 or 25 hours across DST). */
export function localDayHours(date: LocalDate, zone: string): number {
  return (startOfLocalDay(addDays(date, 1), zone) - startOfLocalDay(date, zone)) / HOUR_MS;
}
