import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import type { LogRecord } from "../records/log-record.ts";
import type { AnalyticsSelection } from "./analytics-repository.ts";
import { MAX_VALUES_PER_PERIOD, OVERFLOW_VALUE } from "./log-rollup-bound.ts";
import { buildClosedRollupHours } from "./log-rollup-build.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const T0 = Date.parse("2026-05-04T10:00:00.000Z");
const TEAMS = ["red", "blue", "green", null] as const;

/** Records `first .. first + count - 1`, one every 13 minutes from T0: about 68 hours for 310. */
function records(workspaceId: string, first: number, count: number): LogRecord[] {
  return Array.from({ length: count }, (_, n) => {
    const i = first + n;
    const team = TEAMS[i % 4];
    const status = [200, 200, 200, 500][i % 4]!;
    return logRecord(
      T0 + i * 13 * MINUTE + (i % 5) * 1000,
      {
        workspaceId,
        model: i % 3 === 0 ? "m-1" : "m-2",
        status,
        success: status === 200,
        latencyMs: 0.5 + ((i * 41) % 6000),
        timeToFirstTokenMs: i % 2 === 0 ? null : 4 + (i % 30) * 3.1,
        costUsd: i % 6 === 0 ? null : 0.0003 * (i % 7),
        totalTokens: i % 17,
        metadata: { ...(team === null ? {} : { team }), region: i % 2 === 0 ? "eu" : "us" },
      },
      i,
    );
  });
}

/** Everything an aggregate holds, rounded where floating sums may differ in the last bits. */
function comparable(aggregates: SliceAggregates): unknown {
  const round = (n: number) => Math.round(n * 1e9) / 1e9;
  return [...aggregates]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([key, a]) => ({ key, ...a, costUsd: round(a.costUsd), costSavedUsd: round(a.costSavedUsd) }));
}

const CASES: Array<[string, Partial<AnalyticsSelection>, AnalyticsSlice]> = [
  ["summary of a team", { metadata: { team: "red" } }, { kind: "total" }],
  ["daily series of a team", { metadata: { team: "blue" } }, { kind: "time", interval: "day" }],
  ["hourly series of a team", { metadata: { team: "green" } }, { kind: "time", interval: "hour" }],
  ["groups by team", {}, { kind: "group", by: "metadata", metadataKey: "team" }],
  ["top 2 teams", {}, { kind: "group", by: "metadata", metadataKey: "team", limit: 2 }],
  ["groups by team, successes", { success: true }, { kind: "group", by: "metadata", metadataKey: "team" }],
  ["groups by team within a team", { metadata: { team: "red" } }, { kind: "group", by: "metadata", metadataKey: "team" }],
  ["groups by an undeclared key", {}, { kind: "group", by: "metadata", metadataKey: "region" }],
  ["a team and a model (raw only)", { metadata: { team: "red" }, model: "m-1" }, { kind: "total" }],
];

describe.each(TEST_DATABASES)("declared metadata dimensions on $name", ({ create }) => {
  const store = useStore(create);
  const workspaceId = scopeId("ws-dims");
  const postgres = () => store().dialect === "postgres";
  // Declared once a third of the records are stored (30 hours in), the rest stored after.
  const declaredAtMs = T0 + 30 * HOUR;

  it("sums a key declared after rows were stored only from its rollups_from on, and analytics equal the raw rows'", async () => {
    const s = store();
    if (postgres()) await s.db.updateTable("log_rollup_progress").set({ built_until: new Date(T0).toISOString() }).execute();
    await s.logs.insertBatch(records(workspaceId, 0, 140));
    if (postgres()) await buildClosedRollupHours(s.db, T0 + 20 * HOUR + 5 * MINUTE);
    const declared = await s.transaction((tx) => tx.analyticsDimensions.replace(workspaceId, ["team"], declaredAtMs));
    expect(declared.map((d) => d.key)).toEqual(["team"]);
    const rollupsFrom = declared[0]!.rollupsFrom;
    // PostgreSQL: the first hour not built yet; SQLite: the hour after the newest stored record.
    expect(rollupsFrom).toBe(postgres() ? new Date(T0 + 20 * HOUR).toISOString() : new Date(T0 + 31 * HOUR).toISOString());
    await s.logs.insertBatch(records(workspaceId, 140, 170));
    if (postgres()) await buildClosedRollupHours(s.db, T0 + 100 * HOUR);
    const metaRows = await s.db
      .selectFrom("log_rollups")
      .select([sql<string>`min(hour)`.as("first"), sql<number>`count(*)`.as("rows")])
      .where("workspace_id", "=", workspaceId)
      .where("dim", "=", "meta:team")
      .executeTakeFirstOrThrow();
    expect(Number(metaRows.rows)).toBeGreaterThan(0);
    // Records stored before the declaration are never summed for the key.
    expect(metaRows.first).toBe(postgres() ? rollupsFrom : new Date(T0 + 30 * HOUR).toISOString());
    const { days } = await s.db
      .selectFrom("log_rollups")
      .select(sql<number>`count(*)`.as("days"))
      .where("workspace_id", "=", workspaceId)
      .where("dim", "=", "day:meta:team")
      .executeTakeFirstOrThrow();
    expect(Number(days) > 0).toBe(postgres());
  });

  // Ranges that start before rollups_from, inside a day, and end mid-hour.
  const ranges: Array<[string, number, number]> = [
    ["all of it, partial edges", T0 + 25 * MINUTE, T0 + 62 * HOUR + 30_000],
    ["after rollups_from, whole days inside", T0 + 38 * HOUR + 7 * MINUTE, T0 + 67 * HOUR],
    ["one partial hour", T0 + 50 * HOUR + 10 * MINUTE, T0 + 50 * HOUR + 40 * MINUTE],
  ];
  for (const [rangeName, fromMs, toMs] of ranges) {
    it.each(CASES)(`%s over ${rangeName}: rollups and raw rows agree`, async (_name, filters, slice) => {
      const selection: AnalyticsSelection = { workspaceId, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), ...filters };
      const raw = comparable(await store().analytics.aggregate(selection, slice, { via: "raw" }));
      expect(comparable(await store().analytics.aggregate(selection, slice))).toEqual(raw);
    });
  }

  it("reads the rollups where they are complete: a team's summary matches the records", async () => {
    const from = new Date(T0 + 40 * HOUR).toISOString();
    const to = new Date(T0 + 64 * HOUR).toISOString();
    const all = records(workspaceId, 0, 310).filter((r) => r.createdAt >= from && r.createdAt < to && r.metadata.team === "red");
    const got = (await store().analytics.aggregate({ workspaceId, from, to, metadata: { team: "red" } }, { kind: "total" })).get("");
    expect(got?.requests).toBe(all.length);
    expect(got?.errors).toBe(all.filter((r) => !r.success).length);
  });

  it("keeps at most MAX_VALUES_PER_PERIOD values of a key an hour, and reads a range with more raw", async () => {
    const crowded = scopeId("ws-crowded");
    const hour = T0 + 120 * HOUR;
    if (postgres()) await store().db.updateTable("log_rollup_progress").set({ built_until: new Date(hour).toISOString() }).execute();
    await store().transaction((tx) => tx.analyticsDimensions.replace(crowded, ["session"], hour - 2 * HOUR));
    const many = Array.from({ length: MAX_VALUES_PER_PERIOD + 5 }, (_, i) =>
      logRecord(hour + i * 3000, { workspaceId: crowded, costUsd: 0.001 * (i % 3), metadata: { session: `s-${i}` } }, i),
    );
    await store().logs.insertBatch(many.slice(0, 600));
    await store().logs.insertBatch(many.slice(600));
    if (postgres()) await buildClosedRollupHours(store().db, hour + 30 * HOUR);
    const values = await store()
      .db.selectFrom("log_rollups")
      .select(["value", sql<number>`sum(requests)`.as("requests")])
      .where("workspace_id", "=", crowded)
      .where("dim", "=", "meta:session")
      .groupBy("value")
      .execute();
    expect(values.length).toBe(MAX_VALUES_PER_PERIOD + 1);
    expect(Number(values.find((row) => row.value === OVERFLOW_VALUE)?.requests)).toBe(5);
    expect(values.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(many.length);
    const selection: AnalyticsSelection = { workspaceId: crowded, from: new Date(hour - HOUR).toISOString(), to: new Date(hour + 2 * HOUR).toISOString() };
    const slice: AnalyticsSlice = { kind: "group", by: "metadata", metadataKey: "session", limit: 10 };
    expect(comparable(await store().analytics.aggregate(selection, slice))).toEqual(comparable(await store().analytics.aggregate(selection, slice, { via: "raw" })));
  });

  it("drops a key's rollups when it is no longer declared", async () => {
    const kept = await store().transaction((tx) => tx.analyticsDimensions.replace(workspaceId, ["region"], T0 + 90 * HOUR));
    expect(kept.map((d) => d.key)).toEqual(["region"]);
    const { rows } = await store()
      .db.selectFrom("log_rollups")
      .select(sql<number>`count(*)`.as("rows"))
      .where("workspace_id", "=", workspaceId)
      .where("dim", "in", ["meta:team", "day:meta:team"])
      .executeTakeFirstOrThrow();
    expect(Number(rows)).toBe(0);
  });
});
