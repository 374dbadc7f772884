import { sql, type Kysely } from "kysely";
import { idBound } from "./log-id-bound.ts";
import { logRollupsPartitioned, partitionLogRollups, unpartitionedRollupsHoldRows, withoutSumStatistics } from "./log-rollup-partitions.ts";
import type { Database } from "./schema.ts";

/**
 * PostgreSQL's day partitions: a partition per UTC day, named `<table>_pYYYYMMDD`, of `logs` and
 * `log_metadata` (migration 0022) holding the ids made that day (a UUIDv7 starts with its
 * millisecond), and of `log_rollups` (`log-rollup-partitions.ts`) holding the periods starting
 * that day. Expiring a day detaches and drops its tables.
 */
const DAY_MS = 86_400_000;
interface DayPartitioned {
  table: "logs" | "log_metadata" | "log_rollups";
  /** The partition key's value at a day's start. */
  bound(dayMs: number): string;
  /** Run on a partition just created. */
  created?(db: Kysely<Database>, name: string): Promise<void>;
}
const LOG_TABLES: readonly DayPartitioned[] = [
  { table: "logs", bound: idBound },
  { table: "log_metadata", bound: idBound },
];
const ROLLUPS: DayPartitioned = { table: "log_rollups", bound: (dayMs) => new Date(dayMs).toISOString(), created: withoutSumStatistics };

/** The tables partitioned by day: the logs', and the rollups once partitioned. */
async function dayPartitionedTables(db: Kysely<Database>): Promise<readonly DayPartitioned[]> {
  return (await logRollupsPartitioned(db)) ? [...LOG_TABLES, ROLLUPS] : LOG_TABLES;
}
/** Days created ahead of today, so a gateway that stays down a day or two still finds its partitions. */
export const DAYS_AHEAD = 3;
/**
 * A partition is dropped only once its last id is this long before the retention cutoff: a
 * log's `created_at` is read in the same millisecond as its id is made, or a moment later.
 */
const DROP_MARGIN_MS = 60_000;
const PARTITION_NAME = /_p(\d{4})(\d{2})(\d{2})$/;

function dayName(table: string, dayMs: number): string {
  return `${table}_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/**
 * Creates the day partitions of every table from `fromMs`'s day to `toMs`'s, where missing.
 * A day whose rows the default partition already holds (written while its partition was
 * missing) cannot be created: that day is left to the default partition, and retention empties
 * it. A day of the rollups' first partition (the table from before they were partitioned) is its.
 */
export async function ensureDayPartitions(db: Kysely<Database>, fromMs: number, toMs: number): Promise<void> {
  const tables = await dayPartitionedTables(db);
  for (let day = Math.floor(fromMs / DAY_MS) * DAY_MS; day <= toMs; day += DAY_MS) {
    for (const { table, bound, created } of tables) {
      const name = dayName(table, day);
      if (await exists(db, name)) continue;
      const made = await sql`CREATE TABLE ${sql.table(name)} PARTITION OF ${sql.table(table)} FOR VALUES FROM (${sql.lit(bound(day))}) TO (${sql.lit(bound(day + DAY_MS))})`
        .execute(db)
        .then(() => true)
        .catch((error: unknown) => {
          // Another gateway of the same store created it at the same moment.
          if (isDuplicate(error) || overlaps(error)) return false;
          if (!/would be violated by some row/.test(String(error))) throw error;
          return false;
        });
      if (made) await created?.(db, name);
    }
  }
}

async function exists(db: Kysely<Database>, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(quote_ident(current_schema()) || '.' || quote_ident(${name})) AS found`.execute(db);
  return rows[0]?.found != null;
}

function isDuplicate(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "42P07" || code === "23505";
}

/** The day lies in another partition's range (`log_rollups_until_p…`). */
function overlaps(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "42P17" && /would overlap partition/.test(String(error));
}

/** The day partitions of a table, oldest first, with the day each holds. */
async function dayPartitions(db: Kysely<Database>, table: string): Promise<Array<{ name: string; dayMs: number }>> {
  const { rows } = await sql<{ name: string }>`
    SELECT child.relname AS name FROM pg_inherits
    JOIN pg_class parent ON parent.oid = pg_inherits.inhparent
    JOIN pg_class child ON child.oid = pg_inherits.inhrelid
    WHERE parent.oid = (quote_ident(current_schema()) || '.' || ${table})::regclass`.execute(db);
  return rows
    .flatMap(({ name }) => {
      const match = PARTITION_NAME.exec(name);
      return match ? [{ name, dayMs: Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) }] : [];
    })
    .sort((a, b) => a.dayMs - b.dayMs);
}

/**
 * The end of the last day whose partitions `dropExpiredDayPartitions` drops at this cutoff:
 * rows before it that are still stored lie outside every day partition (the default one, a
 * table not partitioned yet).
 */
export function droppedDaysEnd(cutoffMs: number): number {
  return Math.floor((cutoffMs - DROP_MARGIN_MS) / DAY_MS) * DAY_MS;
}

/**
 * Detaches and drops the day partitions wholly before the cutoff (with the margin), every
 * table: milliseconds whatever their size. Resolves to the number of days of logs dropped.
 */
export async function dropExpiredDayPartitions(db: Kysely<Database>, cutoffMs: number): Promise<number> {
  let dropped = 0;
  for (const { table } of await dayPartitionedTables(db)) {
    for (const { name, dayMs } of await dayPartitions(db, table)) {
      if (dayMs + DAY_MS + DROP_MARGIN_MS > cutoffMs) break;
      // Detaching locks the table against every query until done: if a long query holds it, give
      // up after a moment (the next pass tries again) rather than queue the log writer behind it.
      await db.transaction().execute(async (trx) => {
        await sql`SET LOCAL lock_timeout = '2s'`.execute(trx);
        await sql`ALTER TABLE ${sql.table(table)} DETACH PARTITION ${sql.table(name)}`.execute(trx);
        await sql`DROP TABLE ${sql.table(name)}`.execute(trx);
      });
      if (table === "logs") dropped += 1;
    }
  }
  return dropped;
}

/** True while rows of a table from before migration 0022 wait to be moved into its partitions. */
function unpartitioned(db: Kysely<Database>, table: string): Promise<boolean> {
  return exists(db, `${table}_unpartitioned`);
}

/**
 * Moves up to `batch` of the oldest rows of each `<table>_unpartitioned` into the partitioned
 * table (one statement: they leave the old table and arrive in the new one together), creating
 * the day partitions they need first; drops an old table once it is empty. Resolves to false
 * once nothing is left to move.
 */
export async function moveUnpartitionedStep(db: Kysely<Database>, batch: number): Promise<boolean> {
  let remaining = false;
  for (const { table } of LOG_TABLES) {
    if (!(await unpartitioned(db, table))) continue;
    const old = sql.table(`${table}_unpartitioned`);
    const key = sql.ref(table === "logs" ? "id" : "log_id");
    const { rows } = await sql<{ first: string | null }>`SELECT min(${key}) AS first FROM ${old}`.execute(db);
    const first = rows[0]?.first;
    if (!first) {
      await sql`DROP TABLE IF EXISTS ${old}`.execute(db);
      // The rows arrived in bulk: the planner learns of them now rather than at autovacuum's pass.
      await sql`ANALYZE ${sql.table(table)}`.execute(db);
      continue;
    }
    await ensureDayPartitions(db, idMs(first), idMs(first) + DAY_MS);
    remaining = true;
    await sql`
      WITH moved AS (DELETE FROM ${old} WHERE ${key} IN (SELECT ${key} FROM ${old} WHERE ${key} < ${idBound(Math.floor(idMs(first) / DAY_MS) * DAY_MS + DAY_MS)} ORDER BY ${key} LIMIT ${batch}) RETURNING *)
      INSERT INTO ${sql.table(table)} SELECT * FROM moved ON CONFLICT DO NOTHING`.execute(db);
  }
  return remaining;
}

/** The millisecond a UUIDv7 was made in (0 for an id that is not one: it sorts first). */
function idMs(id: string): number {
  const hex = id.replace("-", "").slice(0, 12);
  return /^[0-9a-f]{12}$/i.test(hex) ? Number.parseInt(hex, 16) : 0;
}

/** How often the day partitions ahead are checked (a day's are created days before it starts). */
const KEEP_EVERY_MS = 6 * 3_600_000;
/** Rows moved per statement out of a table from before 0022, and the pause between two. */
const MOVE_BATCH = 5_000;
const MOVE_PAUSE_MS = 100;
/** Tries at partitioning `log_rollups` while other transactions hold it, and the pause between two. */
const PARTITION_TRIES = 30;
const PARTITION_PAUSE_MS = 10_000;

/**
 * Partitions `log_rollups` if it is not yet (`log-rollup-partitions.ts`): a new store's before
 * resolving, an existing store's in the background (its rows are checked first). Creates the
 * day partitions from yesterday to `DAYS_AHEAD` days ahead now (resolving once done, or failed
 * and reported), again every few hours (then also refreshing the partitioned tables'
 * statistics), and moves the rows of tables from before migration 0022 into them in the
 * background, a batch at a time. Resolves to the stop function. Failures in the background go
 * to `onError` and are tried again at the next pass.
 */
export async function keepLogPartitions(db: Kysely<Database>, onError: (error: unknown) => void = () => {}): Promise<() => Promise<void>> {
  let stopped = false;
  const pause = async (ms: number): Promise<void> => {
    for (let waited = 0; waited < ms && !stopped; waited += MOVE_PAUSE_MS) await new Promise((resolve) => setTimeout(resolve, MOVE_PAUSE_MS));
  };
  const ensure = () => ensureDayPartitions(db, Date.now() - DAY_MS, Date.now() + DAYS_AHEAD * DAY_MS);
  const partitionRollups = async (): Promise<void> => {
    for (let tries = 0; tries < PARTITION_TRIES && !stopped; tries += 1) {
      if (await partitionLogRollups(db)) return;
      await pause(PARTITION_PAUSE_MS);
    }
  };
  // Autovacuum analyses each partition but never a partitioned table itself: its statistics (what
  // the planner estimates a query over several days by) come only from an explicit ANALYZE.
  const analyseParents = async (): Promise<void> => {
    for (const { table } of await dayPartitionedTables(db)) await sql`ANALYZE ${sql.table(table)}`.execute(db);
  };
  const move = async (): Promise<void> => {
    while (!stopped && (await moveUnpartitionedStep(db, MOVE_BATCH))) await pause(MOVE_PAUSE_MS);
  };
  const rollupsInBackground = await unpartitionedRollupsHoldRows(db).catch(() => true);
  if (!rollupsInBackground) await partitionRollups().catch(onError);
  // Without its partitions a day's logs go to the default partition: the gateway starts all the same.
  await ensure().catch(onError);
  let running: Promise<unknown> = Promise.all([move().catch(onError), rollupsInBackground ? partitionRollups().then(ensure).catch(onError) : undefined]);
  const timer = setInterval(() => {
    running = running.then(() => (stopped ? undefined : partitionRollups().then(ensure).then(move).then(analyseParents).catch(onError)));
  }, KEEP_EVERY_MS);
  timer.unref?.();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
