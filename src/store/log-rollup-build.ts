import { sql, type Kysely } from "kysely";
import { postgresJsonRows } from "./dialects/postgres-json-rows.ts";
import { idRangeOf } from "./log-id-bound.ts";
import {
  ROLLUP_COLUMNS,
  ROLLUP_DIMENSIONS,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_MAX_COLUMNS,
  ROLLUP_MIN_COLUMNS,
  RollupAccumulator,
  type DeclaredKeys,
  type LogRollupsTable,
  type RollupInput,
} from "./log-rollup-rows.ts";
import { ROLLUP_CONFLICT_CLAUSE } from "./log-rollup-sql.ts";
import { boundMetadataRows, MAX_VALUES_PER_PERIOD, OVERFLOW_VALUE } from "./log-rollup-bound.ts";
import { readDeclaredKeys } from "./declared-keys.ts";
import type { Database } from "./schema.ts";

/**
 * PostgreSQL's rollups of closed hours, summed from the stored rows in the background (migration
 * 0023). The log writer stores rows only, so a batch costs what its rows cost; `built_until` in
 * `log_rollup_progress` says up to which hour `log_rollups` is complete.
 *
 * What keeps the sums exact: a record created before `built_until` is added to the rollups by
 * the writer in the transaction that stores it; a later one is left to the build. The writer
 * reads `built_until` under a shared advisory lock held to its commit, and the build moves it on
 * under the exclusive one, after checking that the hour still holds the rows it summed. So a
 * batch either commits before the build closes the hour (and is counted by it, or the build
 * finds the count changed and tries again later) or waits and then sees the hour closed.
 *
 * Every dimension, end users included, is summed per hour here (`ROLLUP_PERIOD` says why the
 * embedded store sums users per day). Day rows (`day:<dim>`) are written when the build closes a
 * day's last hour, as the sums of its hour rows; a record landing later in a built day is added
 * to them by the writer like to the hour rows. So a day before `built_until`'s day has complete
 * day rows.
 *
 * A store whose users were summed per day before (migration 0028) has `day:user` rows for its
 * older days and no user hour rows before `user_hours_from`: reads take those hours from the raw rows.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** An hour is built once it ended this long ago: a batch in flight (or a clock a little behind) still lands in it. */
export const BUILD_GRACE_MS = 120_000;
/** Rows read per statement while summing an hour. */
const PAGE_ROWS = 20_000;
/** Rollup rows per upsert statement. */
const UPSERT_ROWS = 5_000;
const EVERY_MS = 60_000;
/** Hours built per pass at most, so a store that was away long catches up over several passes. */
const HOURS_PER_PASS = 168;

/** The advisory lock key of this schema's rollups (each schema's store has its own). */
const LOCK_KEY = sql`hashtext(current_schema() || '.log_rollups')`;

/** `built_until`, unlocked (a read of analytics: the rollups before it are complete). */
export async function readBuiltUntil(db: Kysely<Database>): Promise<string> {
  const row = await db.selectFrom("log_rollup_progress").select("built_until").executeTakeFirstOrThrow();
  return row.built_until;
}

/**
 * What analytics reads of the progress, unlocked: `builtUntil`, and `userHoursFrom`, the hour
 * from which end users have hour rows (undefined: always; migration 0028).
 */
export async function readRollupProgress(db: Kysely<Database>): Promise<{ builtUntil: string; userHoursFrom: string | undefined }> {
  const row = await db.selectFrom("log_rollup_progress").select(["built_until", "user_hours_from"]).executeTakeFirstOrThrow();
  return { builtUntil: row.built_until, userHoursFrom: row.user_hours_from ?? undefined };
}

/**
 * The writer's side, inside its transaction: takes the shared lock to the end of the
 * transaction and then reads `built_until` (a statement after the lock, so it sees a build that committed meanwhile).
 */
export async function lockBuiltUntil(trx: Kysely<Database>): Promise<string> {
  await sql`SELECT pg_advisory_xact_lock_shared(${LOCK_KEY})`.execute(trx);
  return readBuiltUntil(trx);
}

/**
 * A change of the declared metadata keys, inside its transaction: takes the exclusive lock (so
 * no batch or build is between reading the declarations and committing) and reads `built_until`:
 * every hour from it on is summed after the change, with the keys it declares.
 */
export async function lockBuiltUntilExclusive(trx: Kysely<Database>): Promise<string> {
  await sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`.execute(trx);
  return readBuiltUntil(trx);
}

/**
 * The rollup deltas the writer adds itself where hours are built in the background: those of
 * the records created before `builtUntilMs` (an hour already built), with their day rows when
 * their whole day is built. The rest is the build's.
 */
export function builtPeriodRollupRows(records: readonly RollupInput[], builtUntilMs: number, declared?: DeclaredKeys): LogRollupsTable[] {
  const accumulator = new RollupAccumulator(declared, { everyDimensionHourly: true });
  for (const record of records) {
    const ms = Date.parse(record.createdAt);
    if (ms < builtUntilMs) accumulator.add(record, Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS <= builtUntilMs);
  }
  return accumulator.rows();
}

/**
 * Builds the closed hours (ended `BUILD_GRACE_MS` before `nowMs`), oldest first; resolves to how
 * many it built. Stops early when an hour changed while it was summed: the next pass tries again.
 */
export async function buildClosedRollupHours(db: Kysely<Database>, nowMs = Date.now()): Promise<number> {
  let built = 0;
  for (; built < HOURS_PER_PASS; built += 1) {
    const hour = await readBuiltUntil(db);
    if (Date.parse(hour) + HOUR_MS + BUILD_GRACE_MS > nowMs) break;
    if (!(await buildHour(db, hour))) break;
  }
  return built;
}

type StoredRow = {
  id: string;
  workspace_id: string;
  created_at: string;
  success: number;
  latency_ms: number;
  time_to_first_token_ms: number | null;
  end_user: string | null;
  model: string;
  provider: string;
  virtual_key_id: string | null;
  status: number;
  cost_usd: number | null;
  cache_status: string | null;
  cost_saved_usd: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** JSON; read only for workspaces with declared keys. */
  metadata?: string | null;
};

/** Sums one hour's stored rows into the rollups and moves `built_until` past it; false when the hour changed meanwhile. */
async function buildHour(db: Kysely<Database>, hour: string): Promise<boolean> {
  const end = new Date(Date.parse(hour) + HOUR_MS).toISOString();
  const ids = idRangeOf(hour, end);
  // `left(created_at, 13)` is the hour as `logs_hour_idx` holds it (migration 0030): pages by id within it.
  const inHour = db
    .selectFrom("logs")
    .where(sql`left(created_at, 13)`, "=", hour.slice(0, 13))
    .where("created_at", ">=", hour)
    .where("created_at", "<", end)
    .where("id", ">=", ids.from!)
    .where("id", "<", ids.to!);
  const declared = await readDeclaredKeys(db);
  const accumulator = new RollupAccumulator(declared, { everyDimensionHourly: true });
  let summed = 0;
  for (let after: string | undefined; ; ) {
    const page = (await inHour
      .select([
        "id", "workspace_id", "created_at", "success", "latency_ms", "time_to_first_token_ms", "end_user", "model", "provider",
        "virtual_key_id", "status", "cost_usd", "cache_status", "cost_saved_usd", "prompt_tokens", "completion_tokens", "total_tokens",
      ])
      // The metadata is parsed only for the workspaces that declared keys.
      .$if(declared.size > 0, (query) => query.select(sql<string | null>`CASE WHEN workspace_id IN (${sql.join([...declared.keys()])}) THEN metadata END`.as("metadata")))
      .$if(after !== undefined, (query) => query.where("id", ">", after!))
      .orderBy("id")
      .limit(PAGE_ROWS)
      .execute()) as StoredRow[];
    for (const row of page) accumulator.add(toRollupInput(row));
    summed += page.length;
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1]!.id;
  }
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`.execute(trx);
    // Another process may have built it; a batch may have landed in it since it was summed.
    if ((await readBuiltUntil(trx)) !== hour) return false;
    // A key declared meanwhile starts at this hour: sum it again with the key.
    if (JSON.stringify([...(await readDeclaredKeys(trx))]) !== JSON.stringify([...declared])) return false;
    const { count } = await inHour.select((eb) => eb.fn.countAll<string>().as("count")).executeTakeFirstOrThrow();
    if (Number(count) !== summed) return false;
    // The hour holds no rollup rows yet (the writer adds only to built hours): nothing stored to count.
    const rows = await boundMetadataRows(trx, accumulator.rows(), false);
    for (let start = 0; start < rows.length; start += UPSERT_ROWS) await postgresJsonRows.rollups(trx, rows.slice(start, start + UPSERT_ROWS));
    if (Date.parse(end) % DAY_MS === 0) await addDayRows(trx, new Date(Date.parse(end) - DAY_MS).toISOString(), end);
    await trx.updateTable("log_rollup_progress").set({ built_until: end }).execute();
    return true;
  });
}

const MIN_SET = new Set<string>(ROLLUP_MIN_COLUMNS);
const MAX_SET = new Set<string>(ROLLUP_MAX_COLUMNS);
const KEY_SET = new Set<string>(ROLLUP_KEY_COLUMNS);
/**
 * Writes the day rows of `[day, end)` as the sums of its hour rows. None exist yet (the day was
 * not built) but on the day a store moved to hourly user rows (migration 0028), whose `day:user`
 * rows hold its hours before that: the sums are added to them. A declared key with more values
 * in the day than a period keeps gets only an overflow row, the day's sums (`log-rollup-bound.ts`).
 */
export async function addDayRows(trx: Kysely<Database>, day: string, end: string): Promise<void> {
  const inDay = sql`(dim IN (${sql.join(ROLLUP_DIMENSIONS)}) OR dim LIKE 'meta:%') AND hour >= ${day} AND hour < ${end}`;
  const value = sql`CASE WHEN crowded.dim IS NULL THEN value ELSE ${sql.lit(OVERFLOW_VALUE)} END`;
  const select = ROLLUP_COLUMNS.map((column) => {
    if (column === "dim") return sql.raw("'day:' || dim");
    if (column === "hour") return sql`CAST(${day} AS text)`;
    if (column === "value") return value;
    if (KEY_SET.has(column)) return sql.ref(column);
    return sql.raw(`${MIN_SET.has(column) ? "min" : MAX_SET.has(column) ? "max" : "sum"}(${column})`);
  });
  await sql`
    WITH crowded AS (
      SELECT workspace_id, dim FROM log_rollups WHERE dim LIKE 'meta:%' AND hour >= ${day} AND hour < ${end}
      GROUP BY workspace_id, dim HAVING count(DISTINCT value) > ${sql.lit(MAX_VALUES_PER_PERIOD)}
    )
    INSERT INTO log_rollups (${sql.raw(ROLLUP_COLUMNS.join(", "))})
    SELECT ${sql.join(select)} FROM log_rollups LEFT JOIN crowded USING (workspace_id, dim)
    WHERE ${inDay}
    GROUP BY 1, 2, 3, 5
    ${sql.raw(ROLLUP_CONFLICT_CLAUSE)}`.execute(trx);
}

function toRollupInput(row: StoredRow): RollupInput {
  return {
    workspaceId: row.workspace_id,
    createdAt: row.created_at,
    success: row.success === 1,
    latencyMs: row.latency_ms,
    timeToFirstTokenMs: row.time_to_first_token_ms,
    user: row.end_user,
    model: row.model,
    provider: row.provider,
    virtualKeyId: row.virtual_key_id,
    status: row.status,
    costUsd: row.cost_usd,
    cacheStatus: row.cache_status as RollupInput["cacheStatus"],
    costSavedUsd: row.cost_saved_usd,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    totalTokens: row.total_tokens,
    ...(row.metadata ? { metadata: JSON.parse(row.metadata) as Record<string, string> } : {}),
  };
}

/**
 * Builds the closed hours every minute, in the background (the first pass a minute after start,
 * so opening a store that is far behind is not held up). Returns the stop function (which waits
 * for a pass under way). Failures go to `onError`; the next pass retries.
 */
export function keepRollupsBuilt(db: Kysely<Database>, onError: (error: unknown) => void = () => {}): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => buildClosedRollupHours(db).catch(onError));
  }, EVERY_MS);
  timer.unref?.();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
