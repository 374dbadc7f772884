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

/** The millisecond of a UUIDv7 (version digit 7), null for any other id: only those bound a time. */
export function v7Ms(id: string): number | null {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(id) ? idMs(id) : null;
}

/**
 * How far a log's id may be from its `created_ms`: both are taken as the request starts; an hour
 * leaves room for any clock step between them (the main store allows the same).
 */
export const ID_MARGIN_MS = 3_600_000;

/**
 * The `created_ms` condition implied by id times (either may be unknown), with the margin above:
 * added to a query on ids, it lets ClickHouse skip every day partition outside it before looking
 * at any part's primary key, which is what a query over many parts spends its time on.
 */
export function createdMsNear(lowMs: number | null, highMs: number | null): string {
  const conditions = [
    ...(lowMs === null ? [] : [`created_ms >= ${Math.max(0, Math.trunc(lowMs) - ID_MARGIN_MS)}`]),
    ...(highMs === null ? [] : [`created_ms <= ${Math.trunc(highMs) + ID_MARGIN_MS}`]),
  ];
  return conditions.length === 0 ? "1" : conditions.join(" AND ");
}
