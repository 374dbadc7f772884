import { sql } from "kysely";
import { expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
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
