import { sql, type Kysely, type RawBuilder } from "kysely";
import { partitionedById } from "./log-id-bound.ts";
import type { Database } from "./schema.ts";

/**
 * An ORDER BY list in the order of `compareGroups` (`analytics/analytics-views.ts`): cost rounded
 * to ten decimals descending, then requests descending, then key ascending with the null group
 * last. JavaScript compares keys by UTF-16 code unit; PostgreSQL's "C" collation and SQLite's
 * default compare UTF-8 bytes, which order the same except for characters past U+FFFF.
 */
export function groupOrderSql(db: Kysely<Database>, group: { cost: RawBuilder<unknown>; requests: RawBuilder<unknown>; key: RawBuilder<unknown>; isNull: RawBuilder<unknown> }): RawBuilder<unknown> {
  const key = partitionedById(db) ? sql`${group.key} COLLATE "C"` : group.key;
  return sql`round(CAST(coalesce(${group.cost}, 0) AS NUMERIC), 10) DESC, ${group.requests} DESC, CASE WHEN ${group.isNull} THEN 1 ELSE 0 END, ${key}`;
}
