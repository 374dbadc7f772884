import type { LogFilters, LogRecord } from "../records/log-record.ts";
import type { LogsRepository } from "../store/logs-repository.ts";
import { INSERTED_COLUMNS, LISTED_COLUMNS, RECORD_COLUMNS } from "./clickhouse-columns.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { logFiltersSql, type ConfigIdResolver } from "./clickhouse-log-filters.ts";
import { fromClickHouseRow, writeTabSeparated } from "./clickhouse-log-rows.ts";
import { createdMsNear, ID_MARGIN_MS, idBound, idMs, idsInRuns, v7Ms } from "./log-ids.ts";
import { hoursOfUser, inHourRuns, nextHourRuns } from "./clickhouse-user-hours.ts";
import { str, strList } from "./clickhouse-sql.ts";

/**
 * A batch's inserts: its rows go in this many requests at once, so the server parses them (and
 * runs the rollup views over them) on as many cores; ClickHouse 18.16 parses one insert on one.
 */
const PARALLEL_INSERTS = 2;
/** Below this many rows a batch is one insert: smaller parts cost merges for no gain. */
const MIN_ROWS_PER_INSERT = 5_000;
/**
 * The lookup of a batch's stored ids reads at most this many id ranges: the batch's sorted ids
 * cut at their widest gaps in time (of a minute or more). A primary-key condition with many OR
 * arms is slow to analyse on 18.16; a few ranges read a little more and are fast.
 */
const LOOKUP_RANGES = 8;
const RANGE_GAP_MS = 60_000;

/**
 * How far back each step of a listing looks from its anchor (the cursor's time, or now), before
 * the last step, which looks at everything older. Ids are UUIDv7, so each step is a range of the
 * primary key (workspace_id, id): a listing of recent records reads recent granules only. A step
 * reads every id of its range (18.16 sorts them; it cannot stop at the first fifty), so the steps
 * grow about fourfold: a workspace quiet for two hours reads four hours of ids, not a whole day
 * (0.6 s for a day of a workspace with 1.6M logs a day).
 */
const LISTING_WINDOWS_MS = [1, 4, 16, 72, 288, 1_152, 8_784].map((hours) => hours * 3_600_000);

/**
 * The logs repository over ClickHouse's `logs`. Exactly once: a batch stores only the records
 * whose id is not stored yet (the spool replays a batch that may have landed, whole or in part),
 * so neither the rows nor the rollups (materialized views fed by the insert) count a record twice.
 */
export function createClickHouseLogsRepository(connection: ClickHouseConnection, resolveConfig: ConfigIdResolver): LogsRepository {
  const columnList = (columns: readonly string[]) => columns.map((column) => (column.includes(".") ? `\`${column}\`` : column)).join(", ");
  return {
    async insertBatch(records) {
      const unique = new Map<string, LogRecord>();
      for (const record of records) if (!unique.has(record.id)) unique.set(record.id, record);
      const batch = [...unique.values()];
      // The lookup runs on the server while the rows are written out here; a replay, whose
      // records may be stored, writes out again only those that are not.
      const lookup = storedIds(connection, batch);
      const written = writeOut(batch);
      const stored = await lookup;
      await insertParts(connection, stored.size === 0 ? written : writeOut(batch.filter((record) => !stored.has(record.id))));
    },

    async ping() {
      await connection.rows("SELECT 1");
    },

    async list(filters, options = {}) {
      const limit = Math.max(1, Math.trunc(filters.limit));
      const where = await logFiltersSql(filters, resolveConfig);
      const cursor = filters.before !== undefined ? ` AND id < ${str(filters.before)}` : "";
      // First the page's ids, reading only the filtered columns; then its rows, by primary key.
      const ids =
        filters.user === undefined
          ? await idsByWindows(connection, filters.before, `${where}${cursor}`, limit + 1)
          : await idsOfUser(connection, filters, filters.user, `${where}${cursor}`, limit + 1);
      const page = ids.slice(0, limit);
      if (page.length === 0) return { records: [], hasMore: false };
      const columns = columnList(options.bodies ? RECORD_COLUMNS : LISTED_COLUMNS);
      const rows = await connection.rows(
        `SELECT ${columns} FROM logs WHERE workspace_id = ${str(filters.workspaceId)} AND ${idsInRuns(page)} ORDER BY id DESC LIMIT 1 BY id`,
      );
      return { records: rows.map(fromClickHouseRow), hasMore: ids.length > limit };
    },

    async get(id, workspaceId) {
      const [row] = await connection.rows(
        `SELECT ${columnList(RECORD_COLUMNS)} FROM logs WHERE workspace_id = ${str(workspaceId)} AND id = ${str(id)} AND ${createdMsNear(v7Ms(id), v7Ms(id))} LIMIT 1`,
      );
      return row && fromClickHouseRow(row);
    },

    async count(workspaceId) {
      const where = workspaceId === undefined ? "" : ` WHERE workspace_id = ${str(workspaceId)}`;
      const [row] = await connection.rows<{ n: string }>(`SELECT count() AS n FROM logs${where}`);
      return Number(row?.n ?? 0);
    },
  };
}

/**
 * The newest `wanted` ids matching `where`, looked for in steps back from the cursor's time (or
 * now) over `LISTING_WINDOWS_MS`, until enough are found or the last step looked at everything older.
 */
async function idsByWindows(connection: ClickHouseConnection, before: string | undefined, where: string, wanted: number): Promise<string[]> {
  const anchor = before !== undefined ? idMs(before) ?? Date.now() : Date.now();
  const ids: string[] = [];
  let upper: string | null = null;
  // The window's time bounds: from its lower id, to the one above it (or the cursor's, or none).
  let upperMs = before === undefined ? null : v7Ms(before);
  for (const windowMs of [...LISTING_WINDOWS_MS, null]) {
    const lowerMs = windowMs === null ? null : anchor - windowMs;
    const lower = lowerMs === null ? null : idBound(lowerMs);
    const range = `${upper === null ? "" : ` AND id < ${str(upper)}`}${lower === null ? "" : ` AND id >= ${str(lower)}`} AND ${createdMsNear(lowerMs, upperMs)}`;
    ids.push(...(await newestIds(connection, `${where}${range}`, wanted - ids.length)));
    if (ids.length >= wanted || lower === null) return ids;
    upper = lower;
    upperMs = lowerMs;
  }
  return ids;
}

/**
 * The newest `wanted` distinct ids matching `where`. Not `SELECT DISTINCT`: 18.16 gathers every
 * distinct id of the condition before it sorts (a window of 27M ids went past the 4 GB memory
 * limit); an ordered read with a limit keeps only the newest. A record stored twice (a replay
 * before the merge folds it) is skipped, reading on past it.
 */
async function newestIds(connection: ClickHouseConnection, where: string, wanted: number): Promise<string[]> {
  const ids: string[] = [];
  for (let below = ""; ids.length < wanted; ) {
    const limit = wanted - ids.length;
    const rows = await connection.rows<{ id: string }>(`SELECT id FROM logs WHERE ${where}${below} ORDER BY id DESC LIMIT ${limit}`);
    for (const { id } of rows) if (ids[ids.length - 1] !== id) ids.push(id);
    if (rows.length < limit) break;
    below = ` AND id < ${str(rows[rows.length - 1]!.id)}`;
  }
  return ids.slice(0, wanted);
}

/**
 * The newest `wanted` ids matching `where` among the records of `user`, read from the hours
 * the user appears in (`log_user_hours`), newest first: first the hours whose counts hold the
 * page, then, while the other filters leave it short, four times as many at each step.
 */
async function idsOfUser(connection: ClickHouseConnection, filters: LogFilters, user: string, where: string, wanted: number): Promise<string[]> {
  const beforeMs = filters.before === undefined ? null : idMs(filters.before);
  const toMs = filters.to === undefined ? null : Date.parse(filters.to);
  const upToMs = beforeMs === null ? toMs : Math.min(toMs ?? Infinity, beforeMs + ID_MARGIN_MS);
  let hours = await hoursOfUser(connection, filters.workspaceId, user, filters.from === undefined ? null : Date.parse(filters.from), upToMs);
  const ids: string[] = [];
  for (let target = wanted; ids.length < wanted && hours.length > 0; target *= 4) {
    const { runs, taken } = nextHourRuns(hours, target);
    hours = hours.slice(taken);
    ids.push(...(await newestIds(connection, `${where} AND ${inHourRuns(runs)}`, wanted - ids.length)));
  }
  return ids;
}

/**
 * The records as TabSeparated text, cut into the parts of a batch's inserts (up to
 * `PARALLEL_INSERTS`, of `MIN_ROWS_PER_INSERT` rows or more), each a list of chunks.
 */
function writeOut(records: readonly LogRecord[]): Buffer[][] {
  if (records.length === 0) return [];
  const parts = Math.max(1, Math.min(PARALLEL_INSERTS, Math.floor(records.length / MIN_ROWS_PER_INSERT)));
  const size = Math.ceil(records.length / parts);
  const written: Buffer[][] = [];
  for (let start = 0; start < records.length; start += size) written.push(writeTabSeparated(records.slice(start, start + size)));
  return written;
}

/** Sends each part as one insert into `logs`, all at once. */
async function insertParts(connection: ClickHouseConnection, parts: readonly Buffer[][]): Promise<void> {
  // Every insert is awaited before a failure is reported: a retry then finds what landed.
  const results = await Promise.allSettled(parts.map((chunks) => connection.insertTabSeparated("logs", INSERTED_COLUMNS, chunks)));
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * The ids among `records` already stored. One query reads the ids stored in the batch's id ranges
 * (`LOOKUP_RANGES` at most: each a primary-key range of recent granules) in the batch's workspaces,
 * and the batch's are picked out here: no `IN` list of ids for the server to parse, and a fresh
 * batch, the usual case, reads next to nothing.
 */
async function storedIds(connection: ClickHouseConnection, records: readonly LogRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const ids = records.map((record) => record.id).sort();
  // Each id's time read once (a batch holds up to 100,000); an id that is not time-ordered (not
  // UUIDv7) counts as no gap. Cut after the widest gaps.
  const times = ids.map(idMs);
  const wide: Array<{ after: number; ms: number }> = [];
  for (let i = 1; i < ids.length; i++) {
    const ms = (times[i] ?? 0) - (times[i - 1] ?? Number.POSITIVE_INFINITY);
    if (ms >= RANGE_GAP_MS) wide.push({ after: i - 1, ms });
  }
  const gaps = wide
    .sort((a, b) => b.ms - a.ms)
    .slice(0, LOOKUP_RANGES - 1)
    .map((gap) => gap.after)
    .sort((a, b) => a - b);
  const ranges: Array<[string, string]> = [];
  let first = 0;
  for (const after of [...gaps, ids.length - 1]) {
    ranges.push([ids[first]!, ids[after]!]);
    first = after + 1;
  }
  const workspaces = strList([...new Set(records.map((record) => record.workspaceId))]);
  // Days bounded by the ids' times only when every id is a UUIDv7.
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  let allTimed = true;
  for (let i = 0; i < ids.length && allTimed; i++) {
    allTimed = v7Ms(ids[i]!) !== null;
    low = Math.min(low, times[i]!);
    high = Math.max(high, times[i]!);
  }
  const days = allTimed ? createdMsNear(low, high) : "1";
  const within = ranges.map(([low, high]) => `(id >= ${str(low)} AND id <= ${str(high)})`).join(" OR ");
  const rows = await connection.rows<{ id: string }>(
    `SELECT id FROM logs WHERE workspace_id IN ${workspaces} AND (${within}) AND ${days}`,
  );
  if (rows.length === 0) return new Set();
  const wanted = new Set(ids);
  return new Set(rows.map((row) => row.id).filter((id) => wanted.has(id)));
}
