import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import { CLICKHOUSE_ENGINES, type ClickHouseEngine } from "../../test/support/clickhouse-engines.ts";
import { connectClickHouse, type ClickHouseConnection } from "./clickhouse-connection.ts";
import { migrateClickHouse } from "./clickhouse-migrate.ts";
import { CLICKHOUSE_MIGRATIONS, statementsFor } from "./clickhouse-migrations.ts";
import { createClickHouseAnalyticsRepository } from "./clickhouse-analytics-repository.ts";
import { createClickHouseLogsRepository } from "./clickhouse-logs-repository.ts";
import { CASCADE_VIEW } from "./clickhouse-rollup-cascade.ts";
import { createClickHouseExperimentOutcomes } from "./clickhouse-experiment-outcomes.ts";
import { logRecord, scopeId } from "../store/store-test-fixtures.ts";

describe.each(CLICKHOUSE_ENGINES)("ClickHouse log store migrations on $engine", ({ start: startEngine }) => {
  let server: ClickHouseEngine;
  let connection: ClickHouseConnection;

  beforeAll(async () => {
    server = await startEngine();
    connection = await connectClickHouse(await server.target("migrate_test"));
  });
  afterAll(async () => {
    await connection?.close();
    await server?.remove();
  });

  it("apply every version once, record it, and apply nothing on a second run", async () => {
    const versions = CLICKHOUSE_MIGRATIONS.map((migration) => migration.version);
    expect(await migrateClickHouse(connection)).toEqual(versions);
    expect(await migrateClickHouse(connection)).toEqual([]);
    const recorded = await connection.rows<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(recorded.map((row) => Number(row.version))).toEqual(versions);
    const tables = await connection.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name");
    expect(tables.map((row) => row.name)).toEqual(expect.arrayContaining(["feedback", "log_rollups_user_days", "log_rollups_hourly", "logs"]));
  });

  it("apply a later version alone, leaving the applied ones", async () => {
    const later = { version: 9_999, name: "probe", statements: ["CREATE TABLE IF NOT EXISTS probe (x UInt8) ENGINE = MergeTree ORDER BY x"] };
    expect(await migrateClickHouse(connection, [...CLICKHOUSE_MIGRATIONS, later])).toEqual([9_999]);
    const [row] = await connection.rows<{ n: string }>("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'probe'");
    expect(Number(row?.n)).toBe(1);
  });

  it("chain the per-dimension rollup on the combinations rollup (7), keeping its rows and counting each later record once", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_upgrade_test"));
    expect(await migrateClickHouse(upgraded, CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 7))).toEqual([1, 2, 3, 4, 5, 6]);
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-upgrade");
    const start = Date.UTC(2026, 5, 1, 10);
    const models = ["a", "b", "c"];
    const records = Array.from({ length: 600 }, (_, i) => logRecord(start + i * 20_000, { workspaceId, model: models[i % 3]!, status: i % 7 === 0 ? 500 : 200 }, i));
    await logs.insertBatch(records.slice(0, 300));
    expect(await migrateClickHouse(upgraded)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    await logs.insertBatch(records.slice(300));
    // A replay of the later records adds nothing through the chained view either.
    await logs.insertBatch(records.slice(250));
    const views = await upgraded.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name");
    expect(views.map((row) => row.name)).toContain(CASCADE_VIEW);
    expect(views.map((row) => row.name)).not.toContain("log_rollups_hourly_dims_mv");
    const rolled = await upgraded.rows<{ dim: string; value: string; requests: string; tokens: string; latency: string[] }>(
      `SELECT dim, value, countMerge(requests) AS requests, sumMerge(total_tokens) AS tokens, sumForEachMerge(latency) AS latency
       FROM log_rollups_hourly_dims WHERE workspace_id = '${workspaceId}' GROUP BY dim, value ORDER BY dim, value`,
    );
    const raw = await upgraded.rows<{ dim: string; value: string; requests: string; tokens: string; latency: string[] }>(
      `SELECT dim_value.1 AS dim, dim_value.2 AS value, count() AS requests, sum(total_tokens) AS tokens,
         sumForEach(arrayResize(arrayResize(emptyArrayUInt64(), latency_bucket), latency_bucket + 1, toUInt64(1))) AS latency
       FROM logs ARRAY JOIN [('all', ''), ('model', concat('=', assumeNotNull(model))), ('status', concat('=', toString(status)))] AS dim_value
       WHERE workspace_id = '${workspaceId}' GROUP BY dim, value ORDER BY dim, value`,
    );
    expect(raw.find((row) => row.dim === "all")?.requests).toBe("600");
    expect(rolled.filter((row) => row.dim !== "provider" && row.dim !== "virtual_key_id")).toEqual(raw);
    await upgraded.close();
  });

  it("reorder the end-user rollup by user (8), built from the stored logs, counting each later record once", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_user_days_test"));
    expect(await migrateClickHouse(upgraded, CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 8))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-user-days");
    const start = Date.UTC(2026, 5, 1, 20);
    const users = ["ann", "ben", null];
    // Over two UTC days: every user has rows on both.
    const records = Array.from({ length: 600 }, (_, i) => logRecord(start + i * 60_000, { workspaceId, user: users[i % 3]!, status: i % 5 === 0 ? 429 : 200, success: i % 5 !== 0 }, i));
    await logs.insertBatch(records.slice(0, 300));
    expect(await migrateClickHouse(upgraded)).toEqual([8, 9, 10, 11, 12, 13]);
    await logs.insertBatch(records.slice(300));
    await logs.insertBatch(records.slice(250));
    const tables = await upgraded.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE '%users%' ORDER BY name");
    expect(tables.map((row) => row.name)).toEqual([]);
    const rolled = await upgraded.rows<{ user: string; day: string; success: string; requests: string; tokens: string; latency: string[] }>(
      `SELECT end_user_key AS user, day, success, countMerge(requests) AS requests, sumMerge(total_tokens) AS tokens, sumForEachMerge(latency) AS latency
       FROM log_rollups_user_days WHERE workspace_id = '${workspaceId}' GROUP BY user, day, success ORDER BY user, day, success`,
    );
    const raw = await upgraded.rows<{ user: string; day: string; success: string; requests: string; tokens: string; latency: string[] }>(
      `SELECT if(isNull(end_user), '', concat('=', assumeNotNull(end_user))) AS user, toUInt32(intDiv(created_ms, 86400000)) AS day, success,
         count() AS requests, sum(total_tokens) AS tokens,
         sumForEach(arrayResize(arrayResize(emptyArrayUInt64(), latency_bucket), latency_bucket + 1, toUInt64(1))) AS latency
       FROM logs FINAL WHERE workspace_id = '${workspaceId}' GROUP BY user, day, success ORDER BY user, day, success`,
    );
    expect(raw.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(600);
    expect(new Set(raw.map((row) => row.day)).size).toBe(2);
    expect(rolled).toEqual(raw);
    // Run again once the old table is gone (a start that stopped before recording it): nothing is copied twice.
    const eighth = CLICKHOUSE_MIGRATIONS.find((migration) => migration.version === 8)!;
    for (const statement of await statementsFor(eighth, upgraded)) await upgraded.command(statement);
    const [again] = await upgraded.rows<{ n: string }>(`SELECT countMerge(requests) AS n FROM log_rollups_user_days WHERE workspace_id = '${workspaceId}'`);
    expect(again?.n).toBe("600");
    await upgraded.close();
  });

  it("count the stored logs' end users per hour (9), so a listing by user finds records stored before it", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_user_hours_test"));
    expect(await migrateClickHouse(upgraded, CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 9))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-user-hours");
    const start = Date.UTC(2026, 5, 1, 20);
    const users = ["ann", "ben", null];
    // Over ten hours: every user has records in each.
    const records = Array.from({ length: 600 }, (_, i) =>
      logRecord(start + i * 60_000, { workspaceId, user: users[i % 3]!, status: i % 7 === 0 ? 500 : 200, success: i % 7 !== 0, costUsd: i % 5 === 0 ? null : 0.001 * (i % 4) }, i),
    );
    await logs.insertBatch(records.slice(0, 300));
    expect(await migrateClickHouse(upgraded)).toEqual([9, 10, 11, 12, 13]);
    await logs.insertBatch(records.slice(300));
    await logs.insertBatch(records.slice(250));
    const counts = `SELECT end_user_key AS user, hour, success, sum(requests) AS requests, round(sum(cost_usd), 9) AS cost
       FROM log_user_hours WHERE workspace_id = '${workspaceId}' GROUP BY user, hour, success ORDER BY user, hour, success`;
    const raw = await upgraded.rows<{ user: string; hour: number; success: number; requests: string; cost: number }>(
      `SELECT if(isNull(end_user), '', concat('=', assumeNotNull(end_user))) AS user, toUInt32(intDiv(created_ms, 3600000)) AS hour, success,
         count() AS requests, round(sum(ifNull(cost_usd, 0)), 9) AS cost
       FROM logs FINAL WHERE workspace_id = '${workspaceId}' GROUP BY user, hour, success ORDER BY user, hour, success`,
    );
    expect(raw.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(600);
    expect(await upgraded.rows(counts)).toEqual(raw);
    // Run again from its start (a start that stopped midway): each day is counted anew, not twice.
    const ninth = CLICKHOUSE_MIGRATIONS.find((migration) => migration.version === 9)!;
    for (const statement of await statementsFor(ninth, upgraded)) await upgraded.command(statement);
    expect(await upgraded.rows(counts)).toEqual(raw);
    const { records: anns } = await logs.list({ workspaceId, user: "ann", limit: 500 });
    expect(anns.map((record) => record.id)).toEqual(records.filter((_, i) => i % 3 === 0).map((record) => record.id).reverse());
    await upgraded.close();
  });

  it("sum the stored logs' end users per hour with every state (10): user queries over partial days answer as the raw rows", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_user_hour_states_test"));
    expect(await migrateClickHouse(upgraded, CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 10))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const analytics = createClickHouseAnalyticsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-user-hour-states");
    const start = Date.UTC(2026, 5, 1, 20);
    const users = ["ann", "ben", null];
    // Ten hours over two days, latencies and times to first token spread over many buckets.
    const records = Array.from({ length: 600 }, (_, i) =>
      logRecord(
        start + i * 60_000,
        { workspaceId, user: users[i % 3]!, status: i % 7 === 0 ? 500 : 200, success: i % 7 !== 0, latencyMs: 5 + ((i * 37) % 4_000), timeToFirstTokenMs: i % 2 ? null : 1 + ((i * 13) % 900) },
        i,
      ),
    );
    await logs.insertBatch(records.slice(0, 300));
    expect(await migrateClickHouse(upgraded)).toEqual([10, 11, 12, 13]);
    await logs.insertBatch(records.slice(300));
    await logs.insertBatch(records.slice(250));
    // From 20:30 to 05:30: no whole day, so every whole hour is read from the hour rows.
    const selection = { workspaceId, from: new Date(start + 30 * 60_000).toISOString(), to: new Date(start + 9.5 * 3_600_000).toISOString() };
    const slices: AnalyticsSlice[] = [{ kind: "group", by: "user" }, { kind: "group", by: "user", limit: 2 }, { kind: "time", interval: "hour" }, { kind: "time", interval: "day" }];
    const answers = async () => {
      const all = [];
      for (const slice of slices) {
        for (const filters of [{}, { user: "ben" }]) {
          if (slice.kind === "group" && "user" in filters) continue;
          all.push([await analytics.aggregate({ ...selection, ...filters }, slice), await analytics.aggregate({ ...selection, ...filters }, slice, { via: "raw" })]);
        }
      }
      return all;
    };
    const first = await answers();
    for (const [rolled, raw] of first) expect(plain(rolled!)).toEqual(plain(raw!));
    expect(plain(first[0]![1]!)).toHaveLength(3);
    const [hourRows] = await upgraded.rows<{ n: string }>(`SELECT count() AS n FROM log_rollups_user_hours WHERE workspace_id = '${workspaceId}'`);
    expect(Number(hourRows?.n)).toBeGreaterThan(0);
    // Run again from its start (a start that stopped midway): each day is summed anew, not twice.
    const tenth = CLICKHOUSE_MIGRATIONS.find((migration) => migration.version === 10)!;
    for (const statement of await statementsFor(tenth, upgraded)) await upgraded.command(statement);
    for (const [rolled, raw] of await answers()) expect(plain(rolled!)).toEqual(plain(raw!));
    await upgraded.close();
  });

  it("copy the end users' day states into granules of 64 (11): groups by user answer as the raw rows, after a stop midway too", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_user_day_granules_test"));
    const before = CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 11);
    expect(await migrateClickHouse(upgraded, before)).toEqual(before.map((migration) => migration.version));
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const analytics = createClickHouseAnalyticsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-user-day-granules");
    const start = Date.UTC(2026, 5, 1, 20);
    const users = ["ann", "ben", "cid", null];
    // Over five UTC days, one record every ten minutes: whole days, and partial ones at both ends.
    const records = Array.from({ length: 500 }, (_, i) =>
      logRecord(start + i * 600_000, { workspaceId, user: users[i % 4]!, status: i % 7 === 0 ? 500 : 200, success: i % 7 !== 0, costUsd: 0.001 * (i % 3), latencyMs: 5 + ((i * 37) % 4_000) }, i),
    );
    await logs.insertBatch(records.slice(0, 300));
    // Stopped after the copy's rename: the run again finishes it (the view, the old table dropped).
    const eleventh = CLICKHOUSE_MIGRATIONS.find((migration) => migration.version === 11)!;
    const statements = await statementsFor(eleventh, upgraded);
    const renamed = statements.findIndex((statement) => statement.startsWith("RENAME TABLE log_rollups_user_days TO"));
    for (const statement of statements.slice(0, renamed + 1)) await upgraded.command(statement);
    expect(await migrateClickHouse(upgraded)).toEqual([11, 12, 13]);
    await logs.insertBatch(records.slice(300));
    await logs.insertBatch(records.slice(250));
    const tables = await upgraded.rows<{ name: string; engine_full: string }>(
      "SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND name LIKE 'log_rollups_user_days%' ORDER BY name",
    );
    expect(tables.map((table) => table.name)).toEqual(["log_rollups_user_days", "log_rollups_user_days_mv"]);
    expect(tables[0]?.engine_full).toContain("index_granularity = 64");
    // Each record once: the copied ones, and those stored after through the new view.
    const [counted] = await upgraded.rows<{ n: string }>(`SELECT countMerge(requests) AS n FROM log_rollups_user_days WHERE workspace_id = '${workspaceId}'`);
    expect(counted?.n).toBe("500");
    const selection = { workspaceId, from: new Date(start + 95 * 60_000).toISOString(), to: new Date(start + 80 * 3_600_000 + 25 * 60_000).toISOString() };
    for (const slice of [{ kind: "group", by: "user" }, { kind: "group", by: "user", limit: 2 }] as AnalyticsSlice[]) {
      const rolled = plain(await analytics.aggregate(selection, slice));
      expect(rolled).toEqual(plain(await analytics.aggregate(selection, slice, { via: "raw" })));
      expect(rolled).toHaveLength(slice.kind === "group" && slice.limit ? 2 : 4);
    }
    await upgraded.close();
  });

  it("add the experiment columns (12) to a store made before them, and sum an experiment's variants from them", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_experiment_columns_test"));
    const before = CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 12);
    expect(await migrateClickHouse(upgraded, before)).toEqual(before.map((migration) => migration.version));
    // The table as a store made before the experiment fields has it.
    for (const column of ["experiment_id", "experiment_variant"]) await upgraded.command(`ALTER TABLE logs DROP COLUMN ${column}`);
    expect(await migrateClickHouse(upgraded)).toEqual([12, 13]);
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-experiment-columns");
    const experimentId = "0190aaaa-0000-7000-8000-00000000e002";
    const start = Date.UTC(2026, 5, 3, 10);
    await logs.insertBatch(Array.from({ length: 30 }, (_, i) => logRecord(start + i * 1_000, { workspaceId, experimentId, experimentVariant: i % 3 === 0 ? "b" : "a", success: i % 5 !== 0 }, i)));
    const totals = await createClickHouseExperimentOutcomes(upgraded).variantTotals(workspaceId, experimentId, new Date(start).toISOString());
    expect(totals.map((variant) => [variant.variant, variant.requests, variant.errors]).sort()).toEqual([["a", 20, 4], ["b", 10, 2]]);
    await upgraded.close();
  });

  it("add the web search count (13) to a store made before it, and keep each record's count", async () => {
    const upgraded = await connectClickHouse(await server.target("migrate_web_searches_test"));
    const before = CLICKHOUSE_MIGRATIONS.filter((migration) => migration.version < 13);
    expect(await migrateClickHouse(upgraded, before)).toEqual(before.map((migration) => migration.version));
    // The table as a store made before the field has it.
    await upgraded.command("ALTER TABLE logs DROP COLUMN web_searches");
    expect(await migrateClickHouse(upgraded)).toEqual([13]);
    const logs = createClickHouseLogsRepository(upgraded, async (_, config) => config);
    const workspaceId = scopeId("ws-web-searches");
    const record = logRecord(Date.UTC(2026, 5, 4, 10), { workspaceId, webSearches: 2 });
    await logs.insertBatch([record]);
    expect((await logs.get(record.id, workspaceId))?.webSearches).toBe(2);
    await upgraded.close();
  });
});

/** Aggregates as plain data, costs rounded to 9 significant digits (summed in different orders). */
function plain(aggregates: SliceAggregates): unknown {
  const round = (value: number) => Number(value.toPrecision(9));
  return [...aggregates.entries()].map(([key, aggregate]) => ({ key, ...aggregate, costUsd: round(aggregate.costUsd), costSavedUsd: round(aggregate.costSavedUsd) })).sort((a, b) => String(a.key).localeCompare(String(b.key)));
}
