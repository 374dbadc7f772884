import { encodeRollupValue } from "../store/log-rollup-rows.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { str } from "./clickhouse-sql.ts";
import { ID_MARGIN_MS, idBound, joinedToAtMost, RUNS_PER_STATEMENT } from "./log-ids.ts";

/**
 * `log_user_hours`: each end user's records and cost per UTC hour (hours since the epoch) and
 * success (the records without an end user as the user `''`), fed by a view on every insert into `logs`. A logs listing filtered on a user reads the
 * hours the user appears in, newest first, as many as the page needs: a user seen in five hours
 * of a month costs five hours of the workspace's rows, not the days around them. A group by end
 * user ranks the whole hours of its range's partial days from it, not from the raw rows.
 */
const USER_HOURS_TABLE = "log_user_hours";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The end user as the rollups key it (`encodeRollupValue`): `''` for none, else `=` and the user. */
const selectFromLogs = (where: string) => `SELECT workspace_id, if(isNull(end_user), '', concat('=', assumeNotNull(end_user))) AS end_user_key,
     toUInt32(intDiv(created_ms, ${HOUR_MS})) AS hour, success, count() AS requests, sum(ifNull(cost_usd, 0)) AS cost_usd
   FROM logs${where} GROUP BY workspace_id, end_user_key, hour, success`;

/**
 * Migration 9: the table, its view, then the stored logs counted a day (a partition) at a time, so
 * no statement groups more than a day's records; each day's counts are dropped before it is
 * counted, so a run again from the start (after a start that stopped midway) ends the same. The
 * view starts before them, so a record another gateway stores meanwhile on a day not counted yet
 * is counted twice: upgrade with one gateway writing (the migrations run before this one's writer
 * starts).
 */
export function userHoursStatements(logDays: readonly number[]): readonly string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${USER_HOURS_TABLE}
       (workspace_id String, end_user_key String, hour UInt32, success UInt8, requests UInt64, cost_usd Float64)
     ENGINE = SummingMergeTree PARTITION BY intDiv(hour, 24) ORDER BY (workspace_id, end_user_key, hour, success)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${USER_HOURS_TABLE}_mv TO ${USER_HOURS_TABLE} AS ${selectFromLogs("")}`,
    ...logDays.flatMap((day) => [
      `ALTER TABLE ${USER_HOURS_TABLE} DROP PARTITION ${day}`,
      `INSERT INTO ${USER_HOURS_TABLE} ${selectFromLogs(` WHERE created_ms >= ${day * DAY_MS} AND created_ms < ${(day + 1) * DAY_MS}`)}`,
    ]),
  ];
}

export interface UserHour {
  hour: number;
  requests: number;
}

/**
 * The hours (newest first) in which the workspace stored records of `user`, between the hours of
 * `fromMs` and `toMs` (the listing's range, its cursor's time included; either may be open).
 */
export async function hoursOfUser(
  connection: ClickHouseConnection,
  workspaceId: string,
  user: string,
  fromMs: number | null,
  toMs: number | null,
): Promise<UserHour[]> {
  const bounds = [
    ...(fromMs === null ? [] : [` AND hour >= ${Math.floor(fromMs / HOUR_MS)}`]),
    ...(toMs === null ? [] : [` AND hour <= ${Math.floor(toMs / HOUR_MS)}`]),
  ].join("");
  const rows = await connection.rows<{ hour: number; requests: string }>(
    `SELECT hour, sum(requests) AS requests FROM ${USER_HOURS_TABLE}
     WHERE workspace_id = ${str(workspaceId)} AND end_user_key = ${str(encodeRollupValue(user))}${bounds}
     GROUP BY hour ORDER BY hour DESC`,
  );
  return rows.map((row) => ({ hour: Number(row.hour), requests: Number(row.requests) }));
}

/** Consecutive hours `[first, last]`, newest run first as the hours come. */
export type HourRun = { first: number; last: number };

/**
 * The next hours a listing reads, from `hours` (newest first): enough to hold `wanted` records by
 * their counts, as runs of consecutive hours, at most `RUNS_PER_STATEMENT` of them: past that the
 * runs nearest each other are joined, gap included, so a statement reads a little more rather than
 * a listing making many. Returns the runs and how many hours they took; none when `hours` is empty.
 */
export function nextHourRuns(hours: readonly UserHour[], wanted: number): { runs: HourRun[]; taken: number } {
  const runs: HourRun[] = [];
  let held = 0;
  let taken = 0;
  for (const { hour, requests } of hours) {
    const run = runs[runs.length - 1];
    if (run && run.first === hour + 1) run.first = hour;
    else runs.push({ first: hour, last: hour });
    held += requests;
    taken += 1;
    if (held >= wanted) break;
  }
  const joined = joinedToAtMost(
    runs,
    RUNS_PER_STATEMENT,
    (newer, older) => newer.first - older.last - 1,
    (newer, older) => ({ first: older.first, last: newer.last }),
  );
  return { runs: joined, taken };
}

/**
 * The condition of records created in one of `runs`: the ids' range bounds the primary key
 * (workspace_id, id) to those hours' granules, `created_ms` the hours themselves.
 */
export function inHourRuns(runs: readonly HourRun[]): string {
  const arms = runs.map(({ first, last }) => {
    const from = first * HOUR_MS;
    const to = (last + 1) * HOUR_MS;
    return `(id >= ${str(idBound(from - ID_MARGIN_MS))} AND id < ${str(idBound(to + ID_MARGIN_MS))} AND created_ms >= ${from} AND created_ms < ${to})`;
  });
  return `(${arms.join(" OR ")})`;
}
