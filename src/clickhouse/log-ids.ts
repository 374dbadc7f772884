/**
 * Log ids are UUIDv7: their first 12 hex digits (`xxxxxxxx-xxxx`) are the millisecond they were
 * made, so ids sort by time and a time is a bound on ids.
 */

/** The smallest id made at or after `ms`. */
export function idBound(ms: number): string {
  const time = Math.max(0, Math.trunc(ms)).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}

/** The millisecond an id was made, or null when it is not UUIDv7-shaped. */
export function idMs(id: string): number | null {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-/i.exec(id);
  return match ? Number.parseInt(`${match[1]}${match[2]}`, 16) : null;
}
