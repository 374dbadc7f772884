import type { Kysely } from "kysely";

/**
 * The answer cache in the log: `cache_status` (HIT, MISS, REFRESH, DISABLED; null for rows from
 * before and requests that never reached the cache) and `cost_saved_usd` (what a hit would have
 * cost upstream). Frozen: add `0012_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite adds one column per `ALTER TABLE`.
  await db.schema.alterTable("logs").addColumn("cache_status", "text").execute();
  await db.schema.alterTable("logs").addColumn("cost_saved_usd", "double precision").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").dropColumn("cost_saved_usd").execute();
  await db.schema.alterTable("logs").dropColumn("cache_status").execute();
}
