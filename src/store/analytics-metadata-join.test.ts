import { sql, type Compilable, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import { inAnalyticsTransaction, rawRows } from "./analytics-sql.ts";
import type { Database } from "./schema.ts";
import { insertAsBefore0029, logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-05-04T00:00:00.000Z");
const TEAMS = ["red", "blue", "green", "amber", "teal", "plum", "gold"];
const BY_TEAM: AnalyticsSlice = { kind: "group", by: "metadata", metadataKey: "team" };
const TOTAL: AnalyticsSlice = { kind: "total" };

const store = useStore(postgresTestUrl);

// Logs stored before migration 0029, whose pairs are in `log_metadata`. The planner's statistics
// end where the newest hour begins, as they do in a live store between two analyses: it then
// expects a log or two in that hour.
it("joins the newest hour's logs stored before 0029 to their metadata by hash, whatever the planner expects of it", async () => {
  const workspaceId = scopeId("ws-pairs");
  const old = 24_000;
  for (let first = 0; first < old; first += 6_000) {
    await insertAsBefore0029(
      store(),
      Array.from({ length: 6_000 }, (_, n) => {
        const i = first + n;
        return logRecord(T0 + Math.floor((i / old) * 9 * HOUR), { workspaceId, metadata: { team: TEAMS[i % 7]!, feature: `f${i % 50}` } }, i);
      }),
    );
  }
  // This schema's tables only: a bare ANALYZE would study every schema of the database.
  await sql`ANALYZE logs, log_metadata`.execute(store().db);
  const newest = Array.from({ length: 300 }, (_, i) => logRecord(T0 + 10 * HOUR + i * 1000, { workspaceId, metadata: { team: TEAMS[i % 3]! } }, i));
  await insertAsBefore0029(store(), newest);

  const selection = { workspaceId, from: new Date(T0 + 10 * HOUR).toISOString(), to: new Date(T0 + 10.5 * HOUR).toISOString() };
  const ofRed = { ...selection, metadata: { team: "red" } };
  const planOf = (query: Compilable) => async (db: Kysely<Database>) => {
    const statement = query.compile();
    const { rows } = await db.executeQuery<{ "QUERY PLAN": string }>({ ...statement, sql: `EXPLAIN ${statement.sql}` });
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  };
  const grouped = planOf(rawRows(store().db, selection, BY_TEAM).select([sql`m.value`.as("k"), sql`count(*)`.as("r")]).groupBy(sql.raw("1")));
  // Left to itself, the planner loops over the logs, reading the range's pairs once per log.
  expect(await grouped(store().db)).toContain("Nested Loop");
  const plan = await inAnalyticsTransaction(store().db, selection, BY_TEAM, grouped);
  expect(plan).toContain("Hash");
  expect(plan).not.toContain("Nested Loop");
  // A filter reads the range's pairs once too: a log without pairs in its row is looked up in them by hash.
  const filtered = await inAnalyticsTransaction(store().db, ofRed, TOTAL, planOf(rawRows(store().db, ofRed, TOTAL).select(sql`count(*)`.as("r"))));
  expect(filtered).toContain("hashed SubPlan");
  expect(filtered).not.toContain("Nested Loop");

  const groups = await store().analytics.aggregate(selection, BY_TEAM);
  expect(Object.fromEntries([...groups].map(([team, aggregate]) => [team, aggregate.requests]))).toEqual({ red: 100, blue: 100, green: 100 });
  expect((await store().analytics.aggregate(ofRed, TOTAL)).get("")?.requests).toBe(100);
}, 60_000);
