import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { startLogRetention } from "../logging/log-retention-timer.ts";
import type { LogRecord } from "../records/log-record.ts";
import { deleteExpiredStep } from "./log-retention.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const DAY = 86_400_000;
const NOW = Date.now();

describe.each(TEST_DATABASES)("log retention on $name", ({ create }) => {
  const store = useStore(create);

  async function rollupHours(workspaceId: string): Promise<string[]> {
    const rows = await store().db.selectFrom("log_rollups").select("hour").where("workspace_id", "=", workspaceId).where("dim", "=", "all").execute();
    return [...new Set(rows.map((row) => row.hour))].sort();
  }

  it("deletes expired logs, their metadata and their rollups in batches, and keeps the rest", async () => {
    const workspaceId = scopeId("ws");
    const old: LogRecord[] = Array.from({ length: 2_300 }, (_, i) => logRecord(NOW - 40 * DAY + i * 1000, { workspaceId, metadata: { n: String(i) } }, i));
    const recent: LogRecord[] = Array.from({ length: 5 }, (_, i) => logRecord(NOW - DAY + i * 1000, { workspaceId, metadata: { n: "recent" } }, i));
    for (let i = 0; i < old.length; i += 500) await store().logs.insertBatch(old.slice(i, i + 500));
    await store().logs.insertBatch(recent);
    // A record kept, on the day the cutoff falls in: that day's rows must stay.
    const cutoffDayWorkspace = scopeId("ws");
    const keptOnCutoffDay = NOW - 30 * DAY + Math.floor((DAY - ((NOW - 30 * DAY) % DAY)) / 2);
    await store().logs.insertBatch([logRecord(keptOnCutoffDay, { workspaceId: cutoffDayWorkspace })]);
    expect((await rollupHours(workspaceId)).length).toBeGreaterThan(1);
    const dayRows = () => store().db.selectFrom("log_rollups").select("hour").where("workspace_id", "=", workspaceId).where(sql<boolean>`dim LIKE 'day:%'`).execute();
    // PostgreSQL keeps day rows of the hourly dimensions for days already built.
    if (store().dialect === "postgres") expect((await dayRows()).length).toBeGreaterThan(0);

    const cutoff = NOW - 30 * DAY;
    // Other suites share the database: the first step's batch may include their old rows, never more than the batch.
    const first = await deleteExpiredStep(store().db, cutoff, 1_000);
    expect(first.logs).toBe(1_000);
    let steps = 1;
    while (true) {
      const step = await deleteExpiredStep(store().db, cutoff, 1_000);
      steps += 1;
      if (step.logs === 0 && step.rollups === 0) break;
    }
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(await store().logs.count(workspaceId)).toBe(5);
    const metadata = await store().db.selectFrom("log_metadata").select("value").where("workspace_id", "=", workspaceId).execute();
    // PostgreSQL keeps the pairs in the log rows (migration 0029), the embedded store beside them.
    expect(metadata.map((row) => row.value)).toEqual(store().dialect === "postgres" ? [] : Array(5).fill("recent"));
    const filtered = await store().logs.list({ workspaceId, limit: 10, metadata: { n: "recent" } });
    expect(filtered.records.map((record) => record.metadata)).toEqual(Array(5).fill({ n: "recent" }));
    expect((await store().logs.list({ workspaceId, limit: 10, metadata: { n: "7" } })).records).toEqual([]);
    const hours = await rollupHours(workspaceId);
    expect(hours.every((hour) => Date.parse(hour) >= cutoff - 3_600_000)).toBe(true);
    // End users' rows are day rows in the embedded store, hour rows on PostgreSQL.
    const users = await store().db.selectFrom("log_rollups").select("hour").where("workspace_id", "=", workspaceId).where("dim", "=", "user").execute();
    const userBound = store().dialect === "postgres" ? cutoff - 3_600_000 : cutoff - DAY;
    expect(users.every((row) => Date.parse(row.hour) >= userBound)).toBe(true);
    expect((await dayRows()).every((row) => Date.parse(row.hour) >= cutoff - DAY)).toBe(true);
    const cutoffDay = await store().db.selectFrom("log_rollups").select("dim").where("workspace_id", "=", cutoffDayWorkspace).where(sql<boolean>`(dim = 'user' OR dim LIKE 'day:%')`).execute();
    // The cutoff's day keeps its day rows (PostgreSQL: one per dimension) and its user row.
    expect(cutoffDay.map((row) => row.dim).sort()).toEqual(
      store().dialect === "postgres" ? ["day:all", "day:model", "day:provider", "day:status", "day:user", "day:virtual_key_id", "user"] : ["user"],
    );
    const summary = await store().analytics.aggregate({ workspaceId, from: new Date(NOW - 2 * DAY).toISOString(), to: new Date(NOW).toISOString() }, { kind: "total" });
    expect(summary.get("")?.requests).toBe(5);
  });

  it("runs on a timer until nothing is left, and stops", async () => {
    const workspaceId = scopeId("ws");
    // Four days old: past the two days' retention, and (on PostgreSQL) its whole day too.
    await store().logs.insertBatch([logRecord(NOW - 4 * DAY, { workspaceId }), logRecord(NOW - 1000, { workspaceId })]);
    const retention = startLogRetention(store(), { days: 2, batch: 1, pauseMs: 1 });
    await retention.idle();
    expect(await store().logs.count(workspaceId)).toBe(1);
    await retention.stop();
  });
});
