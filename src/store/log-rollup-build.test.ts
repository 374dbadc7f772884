import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
import type { AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import type { LogRecord } from "../records/log-record.ts";
import type { AnalyticsSelection } from "./analytics-repository.ts";
import { buildClosedRollupHours, readBuiltUntil, readRollupProgress } from "./log-rollup-build.ts";
import * as userHours from "./migrations/0028_log_rollup_user_hours.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";
import type { Store } from "./open-store.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-04-01T10:00:00.000Z");
const MINUTE = 60_000;

/** 300 records over 50 hours (whole days and hours, partial ones), every dimension varied. */
function records(workspaceId: string, first = 0, count = 300): LogRecord[] {
  return Array.from({ length: count }, (_, n) => {
    const i = first + n;
    const status = [200, 200, 429, 500][i % 4]!;
    return logRecord(
      T0 + i * 10 * MINUTE + (i % 9) * 1000,
      {
        workspaceId,
        user: ["ann", "ben", null][i % 3]!,
        model: ["m-1", "m-2", "m-3"][i % 3 === 1 ? 2 : i % 2]!,
        provider: i % 5 === 0 ? "anthropic" : "openai",
        virtualKeyId: i % 4 === 0 ? null : `vk-${i % 3}`,
        status,
        success: status === 200,
        latencyMs: 0.3 + ((i * 53) % 7000),
        timeToFirstTokenMs: i % 4 === 1 ? null : 3 + (i % 40) * 2.7,
        costUsd: i % 7 === 0 ? null : 0.0002 * (i % 11),
        costSavedUsd: i % 10 === 0 ? 0.001 : null,
        cacheStatus: i % 10 === 0 ? "HIT" : null,
        promptTokens: i % 13,
        completionTokens: (i * 5) % 19,
        totalTokens: (i % 13) + ((i * 5) % 19),
        metadata: { team: i % 2 === 0 ? "red" : "blue" },
      },
      i,
    );
  });
}

const SLICES: Array<[string, Partial<AnalyticsSelection>, AnalyticsSlice]> = [
  ["total", {}, { kind: "total" }],
  ["total of a model", { model: "m-2" }, { kind: "total" }],
  ["total of a user", { user: "ann" }, { kind: "total" }],
  ["hourly", {}, { kind: "time", interval: "hour" }],
  ["daily", {}, { kind: "time", interval: "day" }],
  ["daily of a user", { user: "ben" }, { kind: "time", interval: "day" }],
  ["by user", {}, { kind: "group", by: "user" }],
  ["by model, failures", { success: false }, { kind: "group", by: "model" }],
  ["by status", {}, { kind: "group", by: "status" }],
  ["by virtual key", {}, { kind: "group", by: "virtual_key_id" }],
];

/** Everything an aggregate holds, rounded where floating sums may differ in the last bits. */
function comparable(aggregates: SliceAggregates): unknown {
  const round = (n: number) => Math.round(n * 1e9) / 1e9;
  return [...aggregates]
    .map(([key, a]) => [key, { ...a, costUsd: round(a.costUsd), costSavedUsd: round(a.costSavedUsd) }] as const)
    .sort(([a], [b]) => String(a).localeCompare(String(b)));
}

/** Three ranges over the records, with partial hours and days at their ends; the third from `thirdFromMs`. */
function rangesOf(workspaceId: string, thirdFromMs: number): AnalyticsSelection[] {
  return [
    { workspaceId, from: new Date(T0 + 25 * MINUTE).toISOString(), to: new Date(T0 + 47 * HOUR + 30_000).toISOString() },
    { workspaceId, from: new Date(T0 - 10 * HOUR).toISOString(), to: new Date(T0 + 60 * HOUR).toISOString() },
    { workspaceId, from: new Date(thirdFromMs).toISOString(), to: new Date(T0 + 38 * HOUR).toISOString() },
  ];
}

/** Every slice over every range equals the raw rows' answer. */
async function expectRollupsEqualRawRows(store: () => Store, ranges: readonly AnalyticsSelection[]): Promise<void> {
  for (const range of ranges) {
    for (const [name, filters, slice] of SLICES) {
      const selection = { ...range, ...filters };
      const raw = comparable(await store().analytics.aggregate(selection, slice, { via: "raw" }));
      expect(comparable(await store().analytics.aggregate(selection, slice)), `${name} from ${range.from}`).toEqual(raw);
    }
  }
}

describe("rollups built in the background on PostgreSQL", () => {
  const store = useStore(postgresTestUrl);
  const workspaceId = scopeId("ws");
  // Mid-hour and mid-day at both ends.
  const ranges = rangesOf(workspaceId, T0 + 14 * HOUR);


  const rolledUp = async (dim: "all" | "day:all" = "all"): Promise<number> => {
    const row = await store()
      .db.selectFrom("log_rollups")
      .select(sql<string>`coalesce(sum(requests), 0)`.as("requests"))
      .where("workspace_id", "=", workspaceId)
      .where("dim", "=", dim)
      .executeTakeFirstOrThrow();
    return Number(row.requests);
  };

  it("leaves hours not built to the build, reads them raw, and builds closed hours exactly once", async () => {
    const db = store().db;
    await db.updateTable("log_rollup_progress").set({ built_until: new Date(T0 - 2 * HOUR).toISOString() }).execute();
    const data = records(workspaceId);
    await store().logs.insertBatch(data.slice(0, 200));
    // A retried batch (half stored already) stores and counts only the new half.
    await store().logs.insertBatch(data.slice(100));
    expect(await store().logs.count(workspaceId)).toBe(300);
    expect(await rolledUp()).toBe(0);
    await expectRollupsEqualRawRows(store, ranges);

    // Up to mid-day: user rows (per day) hold part of a day, which must still be read raw.
    // Hours from T0-2h to T0+19h have ended two minutes (the grace) before T0+20h30.
    expect(await buildClosedRollupHours(db, T0 + 20 * HOUR + 30 * MINUTE)).toBe(22);
    expect(await readBuiltUntil(db)).toBe(new Date(T0 + 20 * HOUR).toISOString());
    expect(await rolledUp()).toBe(20 * 6);
    await expectRollupsEqualRawRows(store, ranges);
    expect(await buildClosedRollupHours(db, T0 + 20 * HOUR + 30 * MINUTE)).toBe(0);

    await buildClosedRollupHours(db, T0 + 60 * HOUR);
    expect(await rolledUp()).toBe(300);
    // Day rows for the two days closed: April 1st from 10:00 (84 records) and April 2nd (144).
    expect(await rolledUp("day:all")).toBe(84 + 144);
    await expectRollupsEqualRawRows(store, ranges);
  });

  it("adds records landing in hours already built at once, and a replayed batch never twice", async () => {
    const late = records(workspaceId, 300, 40).map((record, i) => ({ ...record, ...relocated(record, T0 + 3 * HOUR + i * 1000) }));
    await store().logs.insertBatch(late);
    await store().logs.insertBatch(late);
    expect(await store().logs.count(workspaceId)).toBe(340);
    expect(await rolledUp()).toBe(340);
    expect(await rolledUp("day:all")).toBe(84 + 144 + 40);
    await expectRollupsEqualRawRows(store, ranges);
  });

  it("builds an hour again when a batch lands in it while it is summed", async () => {
    const db = store().db;
    const built = await readBuiltUntil(db);
    const hour = Date.parse(built);
    await store().logs.insertBatch([logRecord(hour + 5 * MINUTE, { workspaceId }, 1)]);
    // A transaction of another writer, committed after the build has read the hour, is caught by the count under the lock.
    const racing = logRecord(hour + 6 * MINUTE, { workspaceId }, 2);
    const building = buildClosedRollupHours(db, hour + 3 * HOUR);
    await store().logs.insertBatch([racing]);
    await building;
    await buildClosedRollupHours(db, hour + 3 * HOUR);
    expect(Date.parse(await readBuiltUntil(db))).toBeGreaterThan(hour);
    expect(await rolledUp()).toBe(342);
    await expectRollupsEqualRawRows(store, ranges);
  });

  it("adds a big late batch, copied as two halves at once into the same rollup rows, once, and its replay never", async () => {
    // 500 records in an hour already built: both halves add to the same hour and day rows.
    const late = records(workspaceId, 400, 500).map((record, i) => ({ ...record, ...relocated(record, T0 + 3 * HOUR + i * 1000) }));
    await store().logs.insertBatch(late);
    await store().logs.insertBatch(late);
    expect(await store().logs.count(workspaceId)).toBe(842);
    expect(await rolledUp()).toBe(842);
    await expectRollupsEqualRawRows(store, ranges);
  });
});

describe("a PostgreSQL store whose end users were summed per day (before migration 0028)", () => {
  const store = useStore(postgresTestUrl);
  const workspaceId = scopeId("ws");
  // The third starts mid-hour, before the upgrade (T0 + 20 h).
  const ranges = rangesOf(workspaceId, T0 + 15 * HOUR + 20 * MINUTE);

  it("keeps its day rows as `day:user`, reads the hours before the upgrade raw, and completes the upgrade's day when it closes", async () => {
    const db = store().db;
    await db.updateTable("log_rollup_progress").set({ built_until: new Date(T0 - 2 * HOUR).toISOString() }).execute();
    await store().logs.insertBatch(records(workspaceId));
    // Built to mid-day on April 2nd (T0 + 20 h), then put back as the build before 0028 left it.
    await buildClosedRollupHours(db, T0 + 20 * HOUR + 30 * MINUTE);
    await userHours.down(db as never);
    const userRows = await db.selectFrom("log_rollups").select("hour").where("workspace_id", "=", workspaceId).where("dim", "=", "user").execute();
    expect(userRows.length).toBeGreaterThan(0);
    expect(userRows.every((row) => row.hour.endsWith("T00:00:00.000Z"))).toBe(true);

    await userHours.up(db as never);
    expect(await readRollupProgress(db)).toEqual({ builtUntil: new Date(T0 + 20 * HOUR).toISOString(), userHoursFrom: new Date(T0 + 20 * HOUR).toISOString() });
    await expectRollupsEqualRawRows(store, ranges);

    // A late record in an hour built before the upgrade, on the day not closed yet.
    await store().logs.insertBatch([logRecord(T0 + 16 * HOUR + 7 * MINUTE, { workspaceId, user: "ann", costUsd: 0.5 }, 7)]);
    // The build closes April 2nd: its `day:user` rows get the hours after the upgrade added.
    await buildClosedRollupHours(db, T0 + 60 * HOUR);
    await expectRollupsEqualRawRows(store, ranges);
    const day = await db
      .selectFrom("log_rollups")
      .select(sql<string>`sum(requests)`.as("requests"))
      .where("workspace_id", "=", workspaceId)
      .where("dim", "=", "day:user")
      .where("hour", "=", "2026-04-02T00:00:00.000Z")
      .executeTakeFirstOrThrow();
    expect(Number(day.requests)).toBe(144 + 1);
  });
});

/** A record moved to `ms` (its id too, so it stays in the day partition of its time). */
function relocated(record: LogRecord, ms: number): Pick<LogRecord, "id" | "createdAt"> {
  const time = ms.toString(16).padStart(12, "0");
  return { id: `${time.slice(0, 8)}-${time.slice(8)}${record.id.slice(13)}`, createdAt: new Date(ms).toISOString() };
}
