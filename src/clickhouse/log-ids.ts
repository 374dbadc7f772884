/**
 * Log ids are UUIDv7: their first 12 hex digits (`xxxxxxxx-xxxx`) are the millisecond they were
 * made, so ids sort by time and a time is a bound on ids (`idBound`, within `ID_MARGIN_MS` of the log's time).
 */
import { ID_MARGIN_MS, idBound } from "../store/log-id-bound.ts";

export { ID_MARGIN_MS, idBound };

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
