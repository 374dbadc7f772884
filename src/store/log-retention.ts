import { PostgresAdapter, sql, type Kysely } from "kysely";
import { idBound, partitionedById } from "./log-id-bound.ts";
import { droppedDaysEnd, dropExpiredDayPartitions } from "./log-partitions.ts";
import type { Database } from "./schema.ts";

/** The rows one retention step removed (0 and 0: nothing is left to remove). */
export interface RetentionStep {
  logs: number;
  rollups: number;
  /** Whole days dropped as partitions (PostgreSQL), before any row was deleted. */
  days: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * On PostgreSQL, drops the day partitions wholly expired (`log-partitions.ts`): a day's logs,
 * metadata and rollups go together once the whole day is past the cutoff, in milliseconds, so a
 * log is kept up to a day longer than the retention says; only rows outside every day partition
 * (the default partitions, the rollups' table from before they were partitioned) are then
 * deleted by rows, up to the last day dropped. On the embedded store, deletes the rows up to the
 * cutoff: at most `batch` logs created before it (with their metadata rows), then the rollups of
 * one period that ended by it. Each statement is short, so the store is never held long. Call
 * again while it removed anything. A period still partly inside the retention keeps its rollup
 * whole (its sums then also count the expired logs of that period).
 */
export async function deleteExpiredStep(db: Kysely<Database>, cutoffMs: number, batch: number): Promise<RetentionStep> {
  const partitioned = db.getExecutor().adapter instanceof PostgresAdapter;
  const days = partitioned ? await dropExpiredDayPartitions(db, cutoffMs) : 0;
  const rowsCutoffMs = partitioned ? droppedDaysEnd(cutoffMs) : cutoffMs;
  const cutoff = new Date(rowsCutoffMs).toISOString();
  const ids = (
    await db
      .selectFrom("logs")
      .select("id")
      .where("id", "<", idBound(rowsCutoffMs))
      .where("created_at", "<", cutoff)
      .orderBy("id")
      .limit(batch)
      .execute()
  ).map((row) => row.id);
  if (ids.length > 0) {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("log_metadata").where("log_id", "in", ids).execute();
      await trx.deleteFrom("logs").where("id", "in", ids).execute();
    });
  }
  return { logs: ids.length, rollups: await deleteOldestExpiredRollups(db, rowsCutoffMs), days };
}

/** Deletes the rollups of the oldest period wholly before the cutoff (hours, or days for day rows). */
async function deleteOldestExpiredRollups(db: Kysely<Database>, cutoffMs: number): Promise<number> {
  const hourBound = new Date(Math.floor(cutoffMs / HOUR_MS) * HOUR_MS).toISOString();
  const dayBound = new Date(Math.floor(cutoffMs / DAY_MS) * DAY_MS).toISOString();
  // Day rows (PostgreSQL's `day:` rows; end users in the embedded store) go once their whole day is past.
  const dayRow = partitionedById(db) ? sql<boolean>`dim LIKE 'day:%'` : sql<boolean>`(dim = 'user' OR dim LIKE 'day:%')`;
  const expired = (hour: string) => sql<boolean>`(NOT ${dayRow} OR ${sql.ref("hour")} < ${hour})`;
  const oldest = await db
    .selectFrom("log_rollups")
    .select("hour")
    .where("hour", "<", hourBound)
    .where(expired(dayBound))
    .orderBy("hour")
    .limit(1)
    .executeTakeFirst();
  if (!oldest) return 0;
  const result = await db.deleteFrom("log_rollups").where("hour", "=", oldest.hour).where(expired(dayBound)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
