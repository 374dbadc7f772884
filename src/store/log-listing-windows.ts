import type { LogFilters } from "../records/log-record.ts";
import { ID_MARGIN_MS, idBound, idTimeMs } from "./log-id-bound.ts";

const DAY_MS = 86_400_000;
/**
 * How far back each try of a listing with no lower time bound reads (PostgreSQL), before it
 * reads everything. Planning a query over every day partition opens each one with its indexes,
 * and locks them: at 100 partitions about 30 ms of planning and 1,100 locks for one page,
 * whatever the page holds. A busy workspace fills its page from the last day.
 */
export const LISTING_WINDOWS_MS = [DAY_MS, 8 * DAY_MS, 32 * DAY_MS] as const;

/**
 * The instant the listing's newest possible row was made, by its id: the `before` cursor's time,
 * or `to` (ids run up to `ID_MARGIN_MS` after `created_at`), or `now`; NaN when the cursor is
 * not a UUIDv7 (then nothing narrows the listing).
 */
export function listingUpperMs(filters: Pick<LogFilters, "before" | "to">, now: number): number {
  let upper = now + ID_MARGIN_MS;
  if (filters.to !== undefined) upper = Math.min(upper, Date.parse(filters.to) + ID_MARGIN_MS);
  if (filters.before !== undefined) upper = Math.min(upper, idTimeMs(filters.before));
  return upper;
}

/**
 * Reads the rows with ids from each window's start on (`read(lowest)`, newest first, at most
 * `limit + 1`), widening while fewer than `limit + 1` come back, then with no bound: rows below
 * a window's start are older than all it returned, so a full window is the page.
 */
export async function widening<R>(upperMs: number, limit: number, read: (lowest?: string) => Promise<R[]>): Promise<R[]> {
  for (const span of LISTING_WINDOWS_MS) {
    const rows = await read(idBound(upperMs - span));
    if (rows.length > limit) return rows;
  }
  return read();
}
