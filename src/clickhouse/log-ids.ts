/**
 * Log ids are UUIDv7: their first 12 hex digits (`xxxxxxxx-xxxx`) are the millisecond they were
 * made, so ids sort by time and a time is a bound on ids (`idBound`, within `ID_MARGIN_MS` of the log's time).
 */
import { ID_MARGIN_MS, idBound } from "../store/log-id-bound.ts";
import { str, strList } from "./clickhouse-sql.ts";

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

/** Ids within an hour of the next one are read as one run of the primary key. */
const RUN_GAP_MS = 3_600_000;
/**
 * The runs (primary-key ranges) one statement reads at most: ClickHouse 18.16 is slow to analyse
 * a condition with many.
 */
export const RUNS_PER_STATEMENT = 8;

/**
 * `runs` (newest first) with the narrowest gaps between neighbours closed (`join`ed, the gap
 * included) until at most `most` are left. Joining two runs leaves the other gaps as they were,
 * so the gaps are ranked once.
 */
export function joinedToAtMost<Run>(runs: readonly Run[], most: number, gap: (newer: Run, older: Run) => number, join: (newer: Run, older: Run) => Run): Run[] {
  if (runs.length <= most) return [...runs];
  // Gap i lies between run i and the older run i + 1.
  const closed = new Set(
    runs
      .slice(1)
      .map((older, i) => ({ i, size: gap(runs[i]!, older) }))
      .sort((a, b) => a.size - b.size || a.i - b.i)
      .slice(0, runs.length - most)
      .map(({ i }) => i),
  );
  const joined: Run[] = [runs[0]!];
  runs.slice(1).forEach((older, i) => {
    if (closed.has(i)) joined[joined.length - 1] = join(joined[joined.length - 1]!, older);
    else joined.push(older);
  });
  return joined;
}

interface IdRun {
  low: string;
  high: string;
  lowMs: number | null;
  highMs: number | null;
}

/**
 * The condition of records with one of `ids` (newest first, as a page lists them): the ids as at
 * most `RUNS_PER_STATEMENT` runs close in time, each bounding the primary key and `created_ms` by
 * its own ids, so a page whose records lie days apart reads their granules, not every day between
 * them. Ids not UUIDv7-shaped make a single run.
 */
export function idsInRuns(ids: readonly string[]): string {
  const times = ids.map(v7Ms);
  let runs: IdRun[] = [];
  if (times.some((ms) => ms === null)) runs.push({ low: ids[ids.length - 1]!, high: ids[0]!, lowMs: times[times.length - 1]!, highMs: times[0]! });
  else {
    ids.forEach((id, i) => {
      const run = runs[runs.length - 1];
      if (run && run.lowMs! - times[i]! <= RUN_GAP_MS) Object.assign(run, { low: id, lowMs: times[i] });
      else runs.push({ low: id, high: id, lowMs: times[i]!, highMs: times[i]! });
    });
    runs = joinedToAtMost(
      runs,
      RUNS_PER_STATEMENT,
      (newer, older) => newer.lowMs! - older.highMs!,
      (newer, older) => ({ low: older.low, high: newer.high, lowMs: older.lowMs, highMs: newer.highMs }),
    );
  }
  const arms = runs.map((run) => `(id >= ${str(run.low)} AND id <= ${str(run.high)} AND ${createdMsNear(run.lowMs, run.highMs)})`);
  return `(${arms.join(" OR ")}) AND id IN ${strList(ids)}`;
}
