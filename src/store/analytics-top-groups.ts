import { sql, type Kysely } from "kysely";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import { encodedRawGroupKey, rawRows, rollupRows, type RollupQuery } from "./analytics-sql.ts";
import type { LogFilterSet } from "./log-filters.ts";
import { groupOrderSql } from "./analytics-group-order.ts";
import type { Database } from "./schema.ts";

/** One part of an analytics range: rollup rows over whole periods, or raw rows over the rest. */
export type RangePart = { kind: "rollup"; query: RollupQuery } | { kind: "raw"; selection: LogFilterSet };

type GroupSlice = Extract<AnalyticsSlice, { kind: "group" }>;

/**
 * The keys (as the rollups store them, `encodeRollupValue`) of the first `limit` groups in the
 * order of `compareGroups` (`groupOrderSql`). One statement sums
 * each part's cost and count per key, adds the parts up (rollup periods and raw edges alike, so
 * the ranking is the whole range's) and keeps the first `limit`; no histogram is read for the
 * groups left out.
 */
export async function topGroupKeys(db: Kysely<Database>, slice: GroupSlice, parts: readonly RangePart[], limit: number): Promise<string[]> {
  const subqueries = parts.map((part) =>
    part.kind === "rollup"
      ? rollupRows(db, part.query).select([sql<string>`value`.as("k"), sql`sum(cost_usd)`.as("c"), sql`sum(requests)`.as("r")]).groupBy("value")
      : rawRows(db, part.selection, slice)
          .select([encodedRawGroupKey(db, slice).as("k"), sql`sum(logs.cost_usd)`.as("c"), sql`count(*)`.as("r")])
          .groupBy(sql.raw("1")),
  );
  if (subqueries.length === 0) return [];
  const union = sql.join(
    subqueries.map((subquery, i) => sql`SELECT k, c, r FROM ${subquery} AS ${sql.raw(`p${i}`)}`),
    sql` UNION ALL `,
  );
  const order = groupOrderSql(db, { cost: sql`sum(c)`, requests: sql`sum(r)`, key: sql`k`, isNull: sql`k = ''` });
  const { rows } = await sql<{ k: string }>`SELECT k FROM (${union}) AS parts GROUP BY k ORDER BY ${order} LIMIT ${limit}`.execute(db);
  return rows.map((row) => row.k);
}
