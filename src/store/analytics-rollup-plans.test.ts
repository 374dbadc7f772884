import { sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import { inAnalyticsTransaction, rollupRows, planForRollupsAndEdges } from "./analytics-sql.ts";
import { buildClosedRollupHours } from "./log-rollup-build.ts";
import type { Database } from "./schema.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-05-04T00:00:00.000Z");
const BY_MODEL: AnalyticsSlice = { kind: "group", by: "model", limit: 5 };

const store = useStore(postgresTestUrl);

it("plans the analytics transaction's rollup reads without parallel workers or sequential scans once asked, and only that transaction's", async () => {
  const workspaceId = scopeId("ws-parallel");
  await store().db.updateTable("log_rollup_progress").set({ built_until: new Date(T0).toISOString() }).execute();
  await store().logs.insertBatch(Array.from({ length: 400 }, (_, i) => logRecord(T0 + i * 30_000, { workspaceId, model: `m-${i % 7}`, costUsd: 0.001 * (i % 7) }, i)));
  await buildClosedRollupHours(store().db, T0 + 5 * HOUR);
  await sql`ANALYZE log_rollups`.execute(store().db);
  const selection = { workspaceId, from: new Date(T0).toISOString(), to: new Date(T0 + 4 * HOUR).toISOString() };
  const ranking = rollupRows(store().db, { workspaceId, choice: { dim: "model" }, hours: selection })
    .select([sql`value`.as("k"), sql`sum(cost_usd)`.as("c")])
    .groupBy("value");
  const plan = async (db: Kysely<Database>) => {
    const statement = ranking.compile();
    const { rows } = await db.executeQuery<{ "QUERY PLAN": string }>({ ...statement, sql: `EXPLAIN ${statement.sql}` });
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  };
  // Parallel plans made as cheap as they get, as PostgreSQL's estimates make them on big partitions.
  const preferParallel = (db: Kysely<Database>) =>
    sql`SELECT set_config('parallel_setup_cost', '0', true), set_config('parallel_tuple_cost', '0', true),
      set_config('min_parallel_index_scan_size', '0', true), set_config('min_parallel_table_scan_size', '0', true)`.execute(db);

  const [before, after] = await inAnalyticsTransaction(store().db, selection, BY_MODEL, async (trx) => {
    await preferParallel(trx);
    const before = await plan(trx);
    await planForRollupsAndEdges(trx);
    return [before, await plan(trx)];
  });
  expect(before).toContain("Gather");
  expect(after).not.toContain("Gather");
  expect(after).not.toContain("Seq Scan");
  // The setting ends with the transaction: another statement plans in parallel again.
  const later = await store().db.transaction().execute(async (trx) => {
    await preferParallel(trx);
    return plan(trx);
  });
  expect(later).toContain("Gather");

  // The gateway's own query (rollups, then the first groups' sums) answers as the raw rows do.
  const requests = (groups: Map<unknown, { requests: number }>) => Object.fromEntries([...groups].map(([key, aggregate]) => [String(key), aggregate.requests]));
  const viaRollups = await store().analytics.aggregate(selection, BY_MODEL);
  expect(Object.keys(requests(viaRollups)).sort()).toEqual(["m-2", "m-3", "m-4", "m-5", "m-6"]);
  expect(requests(viaRollups)).toEqual(requests(await store().analytics.aggregate(selection, BY_MODEL, { via: "raw" })));
}, 60_000);
