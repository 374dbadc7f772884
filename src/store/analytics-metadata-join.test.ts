import { sql, type Compilable, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import { joiningMetadataByHash, rawRows } from "./analytics-sql.ts";
import type { LogFilterSet } from "./log-filters.ts";
import type { Database } from "./schema.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-05-04T00:00:00.000Z");
const TEAMS = ["red", "blue", "green", "amber", "teal", "plum", "gold"];
const BY_TEAM: AnalyticsSlice = { kind: "group", by: "metadata", metadataKey: "team" };
const TOTAL: AnalyticsSlice = { kind: "total" };

const store = useStore(postgresTestUrl);

// The planner's statistics end where the newest hour begins, as they do in a live store between
// two analyses: it then expects a log or two in that hour.
it("joins the newest hour's logs to their metadata by hash, whatever the planner expects of it", async () => {
  const workspaceId = scopeId("ws-pairs");
  const old = 24_000;
  for (let first = 0; first < old; first += 6_000) {
    await store().logs.insertBatch(
      Array.from({ length: 6_000 }, (_, n) => {
        const i = first + n;
        return logRecord(T0 + Math.floor((i / old) * 9 * HOUR), { workspaceId, metadata: { team: TEAMS[i % 7]!, feature: `f${i % 50}` } }, i);
      }),
    );
  }
  // This schema's tables only: a bare ANALYZE would study every schema of the database.
  await sql`ANALYZE logs, log_metadata`.execute(store().db);
  const newest = Array.from({ length: 300 }, (_, i) => logRecord(T0 + 10 * HOUR + i * 1000, { workspaceId, metadata: { team: TEAMS[i % 3]! } }, i));
  await store().logs.insertBatch(newest);

  const selection = { workspaceId, from: new Date(T0 + 10 * HOUR).toISOString(), to: new Date(T0 + 10.5 * HOUR).toISOString() };
  const ofRed = { ...selection, metadata: { team: "red" } };
  const queries: Array<[LogFilterSet, AnalyticsSlice, Compilable]> = [
    [selection, BY_TEAM, rawRows(store().db, selection, BY_TEAM).select([sql`m.value`.as("k"), sql`count(*)`.as("r")]).groupBy(sql.raw("1"))],
    [ofRed, TOTAL, rawRows(store().db, ofRed, TOTAL).select(sql`count(*)`.as("r"))],
  ];
  for (const [filters, slice, query] of queries) {
    const statement = query.compile();
    const planOf = async (db: Kysely<Database>) => {
      const { rows } = await db.executeQuery<{ "QUERY PLAN": string }>({ ...statement, sql: `EXPLAIN ${statement.sql}` });
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    };
    // Left to itself, the planner loops over the logs, reading the range's pairs once per log.
    expect(await planOf(store().db)).toContain("Nested Loop");
    const plan = await joiningMetadataByHash(store().db, filters, slice, planOf);
    expect(plan).toContain("Hash");
    expect(plan).not.toContain("Nested Loop");
  }

  const groups = await store().analytics.aggregate(selection, BY_TEAM);
  expect(Object.fromEntries([...groups].map(([team, aggregate]) => [team, aggregate.requests]))).toEqual({ red: 100, blue: 100, green: 100 });
  expect((await store().analytics.aggregate(ofRed, TOTAL)).get("")?.requests).toBe(100);
}, 60_000);
