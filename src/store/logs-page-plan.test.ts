import { sql } from "kysely";
import { expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
import { rawRows } from "./analytics-sql.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const T0 = Date.parse("2026-05-04T00:00:00.000Z");

const store = useStore(postgresTestUrl);

// A workspace holding half the rows, whose newest logs are older than the rest of the store's:
// the planner expects its next log among the next two of any, and an index of `id` alone would let
// it walk every workspace's rows newest first until it found 51 of this one's.
it("reads a busy workspace's newest logs from its own index, whatever the other workspaces wrote since", async () => {
  const busy = scopeId("ws-busy");
  const others = Array.from({ length: 20 }, (_, i) => scopeId(`ws-other-${i}`));
  for (let first = 0; first < 40_000; first += 5_000) {
    await store().logs.insertBatch(
      Array.from({ length: 5_000 }, (_, n) => {
        const i = first + n;
        return logRecord(T0 + i * 100, { workspaceId: i < 20_000 ? busy : others[i % 20]! }, i % 7);
      }),
    );
  }
  await sql`ANALYZE logs`.execute(store().db);

  const { rows } = await sql<{ "QUERY PLAN": string }>`
    EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT id FROM logs WHERE workspace_id = ${busy} ORDER BY id DESC LIMIT 51`.execute(store().db);
  const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
  expect(plan).not.toMatch(/Rows Removed by Filter: \d{3,}/);
  expect(plan).toMatch(/_pkey on logs_default logs_\d+ \(actual rows=51/);

  const page = await store().logs.list({ workspaceId: busy, limit: 50 });
  expect(page.records).toHaveLength(50);
  expect(page.records[0]!.createdAt).toBe(new Date(T0 + 19_999 * 100).toISOString());
}, 60_000);

// No index of `created_at`: a range's raw edge of one workspace is the primary key's range of its
// ids (a log's id holds the millisecond of its time), a minute more at each end.
it("reads a workspace's raw edge of a range through its primary key, not the other workspaces' rows", async () => {
  const edge = scopeId("ws-edge");
  const others = Array.from({ length: 10 }, (_, i) => scopeId(`ws-edge-other-${i}`));
  const T1 = T0 + 86_400_000;
  // Six hours, a log every 100 ms, one in four the workspace's.
  for (let first = 0; first < 216_000; first += 12_000) {
    await store().logs.insertBatch(Array.from({ length: 12_000 }, (_, n) => logRecord(T1 + (first + n) * 100, { workspaceId: n % 4 === 0 ? edge : others[n % 10]! }, n % 7)));
  }
  await sql`ANALYZE logs`.execute(store().db);
  // 02:17 to 02:47: 18,000 logs, 4,500 of them the workspace's.
  const selection = { workspaceId: edge, from: new Date(T1 + 8_220_000).toISOString(), to: new Date(T1 + 10_020_000).toISOString() };
  const query = rawRows(store().db, selection, { kind: "total" }).select((eb) => eb.fn.countAll<string>().as("n"));
  const compiled = query.compile();
  const { rows } = await store().db.executeQuery<{ "QUERY PLAN": string }>({ ...compiled, sql: `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${compiled.sql}` });
  const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
  expect(plan).toMatch(/_pkey/);
  expect(plan).toMatch(/_pkey \(actual rows=\d+ loops=1\)\s+Index Cond: \(\(workspace_id = '[^']+'::text\) AND \(id >= '[^']+'::text\) AND \(id < '[^']+'::text\)\)/);
  // The margins' two minutes (300 of the workspace's logs) at most, never the other workspaces'.
  for (const removed of plan.matchAll(/Rows Removed by (?:Index Recheck|Filter): (\d+)/g)) expect(Number(removed[1])).toBeLessThanOrEqual(300);
  expect(Number((await query.executeTakeFirstOrThrow()).n)).toBe(4_500);
}, 120_000);
