import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** The rows one retention step removed (0 and 0: nothing is left to remove). */
export interface RetentionStep {
  logs: number;
  rollups: number;
}

/**
 * The smallest log id made at or after `ms`: ids are UUIDv7, whose first 12 hex digits are
 * the millisecond, so every id made before `ms` sorts below this prefix. Lets the primary key
 * find expired logs without an index on `created_at` across workspaces.
 */
function idBound(ms: number): string {
  const time = Math.max(0, ms).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Deletes at most `batch` logs created before `cutoffMs` (with their metadata rows), then the
 * rollups of one period that ended by the cutoff: each statement is short, so the store is
 * never held long. Call again while it removed anything. A period still partly inside the
 * retention keeps its rollup whole (its sums then also count the expired logs of that period).
 */
export async function deleteExpiredStep(db: Kysely<Database>, cutoffMs: number, batch: number): Promise<RetentionStep> {
  const cutoff = new Date(cutoffMs).toISOString();
  const ids = (
    await db
      .selectFrom("logs")
      .select("id")
      .where("id", "<", idBound(cutoffMs))
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
  return { logs: ids.length, rollups: await deleteOldestExpiredRollups(db, cutoffMs) };
}

/** Deletes the rollups of the oldest period wholly before the cutoff (hours, or days for users). */
async function deleteOldestExpiredRollups(db: Kysely<Database>, cutoffMs: number): Promise<number> {
  const hourBound = new Date(Math.floor(cutoffMs / HOUR_MS) * HOUR_MS).toISOString();
  const dayBound = new Date(Math.floor(cutoffMs / DAY_MS) * DAY_MS).toISOString();
  const expired = (hour: string) => sql<boolean>`(dim <> 'user' OR ${sql.ref("hour")} < ${hour})`;
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
