import { sql, type Kysely } from "kysely";
import { ROLLUP_MAX_COLUMNS, ROLLUP_MIN_COLUMNS, ROLLUP_SUM_COLUMNS } from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/**
 * PostgreSQL: `log_rollups` partitioned by range of `hour` (the period's start, ISO text), a
 * partition per UTC day (`log_rollups_pYYYYMMDD`, created with the logs' by `log-partitions.ts`)
 * holding that day's hour rows and its `day:` rows, so retention drops a day's rollups whole.
 *
 * The migrations create `log_rollups` as a plain table; the store makes it partitioned when it
 * opens (`partitionLogRollups`; a new store's at once, before the log writer starts). The rows
 * already there stay where they are: the table becomes the partition of every period before a
 * day D (`log_rollups_until_p<D - 1>`), and days from D on get their own partitions. Attaching
 * it needs PostgreSQL to know no row is from D or later: a CHECK constraint proves it, added
 * without checking the rows (`NOT VALID`, a moment's lock) and then validated (a read of the
 * whole table that blocks no write). Only the last step holds the table, for a few statements:
 * rename, create the partitioned table, attach. (Attaching without the constraint would read the
 * whole table while holding it, every rollup write waiting.)
 */
const DAY_MS = 86_400_000;
const CHECK_NAME = "log_rollups_hour_before";
/** D is two days after today, and a constraint whose D is closer than this is replaced: until the attach, rows from D on would be refused. */
const CHECK_LEAD_MS = DAY_MS;
/** How long the statements that lock `log_rollups` wait for it before giving up (to try again later) rather than queue every rollup write behind them. */
const LOCK_TIMEOUT = "2s";

/** PostgreSQL's SQLSTATE for a lock not obtained within `lock_timeout`. */
const LOCK_NOT_AVAILABLE = "55P03";

const dayStart = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString();
const dayName = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replaceAll("-", "");

/**
 * Gives up statistics on a rollup table's sums, extremes and histogram buckets: no query filters
 * or groups by them, and the 140 of them made `ANALYZE` cost 2.5 s a day partition (0.2 s
 * without), paid by autovacuum on every partition and by each `ANALYZE log_rollups`, which
 * visits them all. A table (or partition) created later does not inherit this: each day
 * partition gets it when created.
 */
export async function withoutSumStatistics(db: Kysely<Database>, table: string): Promise<void> {
  const columns = [...ROLLUP_SUM_COLUMNS, ...ROLLUP_MIN_COLUMNS, ...ROLLUP_MAX_COLUMNS];
  await sql`ALTER TABLE ${sql.table(table)} ${sql.join(columns.map((column) => sql`ALTER COLUMN ${sql.ref(column)} SET STATISTICS 0`))}`.execute(db);
}

/** True once `log_rollups` is partitioned. */
export async function logRollupsPartitioned(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ kind: string }>`
    SELECT relkind AS kind FROM pg_class WHERE oid = (quote_ident(current_schema()) || '.log_rollups')::regclass`.execute(db);
  return rows[0]?.kind === "p";
}

/** True when `log_rollups` is still a plain table and holds rows: partitioning it reads them all first. */
export async function unpartitionedRollupsHoldRows(db: Kysely<Database>): Promise<boolean> {
  if (await logRollupsPartitioned(db)) return false;
  const { rows } = await sql<{ filled: boolean }>`SELECT EXISTS (SELECT 1 FROM log_rollups) AS filled`.execute(db);
  return rows[0]?.filled ?? true;
}

/** The day D named by the CHECK constraint, if there is one, and whether it is validated. */
async function existingCheck(db: Kysely<Database>): Promise<{ beforeMs: number; validated: boolean } | undefined> {
  const { rows } = await sql<{ definition: string; validated: boolean }>`
    SELECT pg_get_constraintdef(oid) AS definition, convalidated AS validated FROM pg_constraint
    WHERE conname = ${CHECK_NAME} AND conrelid = (quote_ident(current_schema()) || '.log_rollups')::regclass`.execute(db);
  const found = rows[0];
  const before = found && /'([^']+)'/.exec(found.definition)?.[1];
  return found && before ? { beforeMs: Date.parse(before), validated: found.validated } : undefined;
}

/** Runs `work` in a transaction whose locks wait at most `LOCK_TIMEOUT`. */
function withLockTimeout(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
    await work(trx);
  });
}

/**
 * The CHECK constraint that rows are from before D, validated: D is kept while it is more than
 * `CHECK_LEAD_MS` away, else replaced by two days after today. Resolves to D, or to undefined
 * when another gateway partitioned the table meanwhile.
 */
async function ensureValidatedCheck(db: Kysely<Database>, nowMs: number): Promise<number | undefined> {
  let check = await existingCheck(db);
  if (!check || check.beforeMs - nowMs < CHECK_LEAD_MS) {
    const beforeMs = Date.parse(dayStart(nowMs)) + 2 * DAY_MS;
    let replaced = true;
    await withLockTimeout(db, async (trx) => {
      await sql`LOCK TABLE log_rollups IN ACCESS EXCLUSIVE MODE`.execute(trx);
      // Another gateway of the same store may have got here first.
      if (await logRollupsPartitioned(trx)) return void (replaced = false);
      const current = await existingCheck(trx);
      if (current && current.beforeMs - nowMs >= CHECK_LEAD_MS) return void (replaced = false);
      if (current) await sql`ALTER TABLE log_rollups DROP CONSTRAINT ${sql.id(CHECK_NAME)}`.execute(trx);
      await sql`ALTER TABLE log_rollups ADD CONSTRAINT ${sql.id(CHECK_NAME)} CHECK (hour < ${sql.lit(new Date(beforeMs).toISOString())}) NOT VALID`.execute(trx);
    });
    if (await logRollupsPartitioned(db)) return undefined;
    check = replaced ? { beforeMs, validated: false } : await existingCheck(db);
    if (!check) return undefined;
  }
  // Reads every row, holding a lock that lets rollup writes and reads go on.
  if (!check.validated) {
    try {
      await sql`ALTER TABLE log_rollups VALIDATE CONSTRAINT ${sql.id(CHECK_NAME)}`.execute(db);
    } catch (error) {
      // Another gateway swapped the tables since the check was read: the new table has none.
      if (await logRollupsPartitioned(db)) return undefined;
      throw error;
    }
  }
  return check.beforeMs;
}

interface IndexRow {
  name: string;
  definition: string;
  primary: boolean;
}

/**
 * In one transaction: renames the plain table (and its indexes) out of the way, creates the
 * partitioned `log_rollups` with the same columns, defaults, primary key and indexes and a
 * default partition, and attaches the plain table as the partition of every period before
 * `beforeMs`. Its indexes match the new table's, so they are attached, not built.
 */
async function swap(db: Kysely<Database>, beforeMs: number): Promise<void> {
  await withLockTimeout(db, async (trx) => {
    await sql`LOCK TABLE log_rollups IN ACCESS EXCLUSIVE MODE`.execute(trx);
    // Another gateway of the same store may have done it while this one waited for the lock.
    if (await logRollupsPartitioned(trx)) return;
    const old = `log_rollups_until_p${dayName(beforeMs - DAY_MS)}`;
    const { rows: indexes } = await sql<IndexRow>`
      SELECT i.indexname AS name, i.indexdef AS definition, coalesce(c.contype = 'p', false) AS primary
      FROM pg_indexes i
      LEFT JOIN pg_constraint c ON c.conname = i.indexname AND c.conrelid = (quote_ident(current_schema()) || '.log_rollups')::regclass
      WHERE i.schemaname = current_schema() AND i.tablename = 'log_rollups'`.execute(trx);
    await sql`ALTER TABLE log_rollups RENAME TO ${sql.table(old)}`.execute(trx);
    for (const { name, primary } of indexes) {
      const renamed = sql.id(`${old}_${name.replace(/^log_rollups_/, "")}`);
      if (primary) await sql`ALTER TABLE ${sql.table(old)} RENAME CONSTRAINT ${sql.id(name)} TO ${renamed}`.execute(trx);
      else await sql`ALTER INDEX ${sql.id(name)} RENAME TO ${renamed}`.execute(trx);
    }
    await sql`CREATE TABLE log_rollups (LIKE ${sql.table(old)} INCLUDING DEFAULTS) PARTITION BY RANGE (hour)`.execute(trx);
    for (const { name, definition, primary } of indexes) {
      const columns = /USING \w+ (\(.*\))/.exec(definition)?.[1];
      if (primary && columns) await sql`ALTER TABLE log_rollups ADD CONSTRAINT ${sql.id(name)} PRIMARY KEY ${sql.raw(columns)}`.execute(trx);
      // The definition as PostgreSQL wrote it (`CREATE [UNIQUE] INDEX name ON schema.table USING …`), on the new table.
      else await sql.raw(definition.replace(/ ON (\S+\.)?\S+ USING /, " ON log_rollups USING ")).execute(trx);
    }
    await sql`CREATE TABLE log_rollups_default PARTITION OF log_rollups DEFAULT`.execute(trx);
    await withoutSumStatistics(trx, "log_rollups");
    const { rows } = await sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM ${sql.table(old)}) AS empty`.execute(trx);
    // A new store's table: nothing to keep.
    if (rows[0]?.empty) return void (await sql`DROP TABLE ${sql.table(old)}`.execute(trx));
    await sql`ALTER TABLE log_rollups ATTACH PARTITION ${sql.table(old)} FOR VALUES FROM (MINVALUE) TO (${sql.lit(new Date(beforeMs).toISOString())})`.execute(trx);
    await withoutSumStatistics(trx, old);
    // The partition's bound says the same from now on.
    await sql`ALTER TABLE ${sql.table(old)} DROP CONSTRAINT ${sql.id(CHECK_NAME)}`.execute(trx);
  });
}

/**
 * Makes `log_rollups` partitioned by day, if it is not yet (see above). Resolves to true once
 * it is; false when a lock was not obtained in time (another transaction held the table: call
 * again later). Other failures reject.
 */
export async function partitionLogRollups(db: Kysely<Database>, nowMs = Date.now()): Promise<boolean> {
  if (await logRollupsPartitioned(db)) return true;
  try {
    const beforeMs = await ensureValidatedCheck(db, nowMs);
    if (beforeMs !== undefined) await swap(db, beforeMs);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return false;
    throw error;
  }
}
