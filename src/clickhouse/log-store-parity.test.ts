import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLICKHOUSE_ENGINES, type ClickHouseEngine } from "../../test/support/clickhouse-engines.ts";
import { postgresTestUrl, sqliteTestUrl, removeSqliteTestDatabase, type TestDatabase } from "../../test/support/databases.ts";
import type { AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import type { LogFilters, LogRecord } from "../records/log-record.ts";
import type { AnalyticsSelection } from "../store/analytics-repository.ts";
import type { FeedbackRecord } from "../store/feedback-repository.ts";
import type { LogFilterSet } from "../store/log-filters.ts";
import type { LogStore } from "../store/log-store.ts";
import { openStore, type Store } from "../store/open-store.ts";
import { logRecord, newConfig, scopeId } from "../store/store-test-fixtures.ts";
import { openClickHouseLogStore, type ClickHouseLogStore } from "./open-clickhouse-log-store.ts";

/**
 * The same records written to a main store and to ClickHouse (18.16 over HTTP, and the current
 * release in process): every read the API makes (logs with each filter and cursor paging, a log
 * by id, the export's full view, traces, analytics summary, series and groups, feedback) must
 * answer the same on each.
 */

const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 8, 14, 5, 0, 0);
const MODELS = ["gpt-4o-mini", "gpt-4o", "claude-3-5-haiku", null] as const;
const PROVIDERS = ["openai", "anthropic", null] as const;
const STATUSES = [200, 200, 200, 400, 429, 500, 499] as const;
const USERS = ["alice", "bob", "carol", "dave", null] as const;
const CACHE = ["HIT", "SEMANTIC_HIT", "MISS", null, "MISS"] as const;
const EXPERIMENT = "0190aaaa-0000-7000-8000-00000000e001";

/** A varied, deterministic data set over about three days, in two workspaces. */
function dataset(workspaceA: string, workspaceB: string, configId: string): LogRecord[] {
  const records: LogRecord[] = [];
  for (let i = 0; i < 700; i++) {
    const ms = BASE + Math.floor((i * 3 * 24 * HOUR) / 700) + (i % 7) * 997;
    const status = STATUSES[i % STATUSES.length]!;
    const metadata: Record<string, string> = {};
    if (i % 3 !== 0) metadata.env = i % 2 === 0 ? "prod" : "staging";
    if (i % 5 === 0) metadata.team = `team-${i % 4}`;
    if (i % 11 === 0) metadata["quote'key"] = "va\\lue'";
    records.push(
      logRecord(
        ms,
        {
          workspaceId: i % 9 === 0 ? workspaceB : workspaceA,
          model: MODELS[i % MODELS.length]!,
          provider: PROVIDERS[i % PROVIDERS.length]!,
          virtualKeyId: i % 4 === 0 ? null : `vk-${i % 3}`,
          status,
          success: status < 400,
          stream: i % 2 === 0,
          latencyMs: 5 + ((i * 37) % 4000) + (i % 3) * 0.25,
          timeToFirstTokenMs: i % 2 === 0 ? 1 + ((i * 13) % 900) : null,
          promptTokens: (i * 7) % 500,
          completionTokens: (i * 11) % 300,
          totalTokens: ((i * 7) % 500) + ((i * 11) % 300),
          costUsd: i % 6 === 0 ? null : ((i % 17) + 1) * 0.000125,
          costSavedUsd: i % 5 === 1 ? 0.0005 : null,
          cacheStatus: CACHE[i % CACHE.length]!,
          user: USERS[i % USERS.length]!,
          metadata,
          traceId: `trace-${i % 40}`,
          promptId: i % 8 === 0 ? "prompt-a" : null,
          configId: i % 10 === 0 ? configId : null,
          experimentId: i % 4 === 1 ? EXPERIMENT : null,
          experimentVariant: i % 4 === 1 ? (i % 3 === 0 ? "treatment" : "control") : null,
          requestBody: `{"i":${i},"text":"héllo \\"quoted\\" ${"x".repeat(i % 50)}"}`,
          errorCode: status >= 400 ? "upstream_error" : null,
          errorMessage: status >= 400 ? `failed ${i}` : null,
        },
        i % 3,
      ),
    );
  }
  return records;
}

interface Side {
  name: string;
  store: LogStore;
}

const clickhouses: Array<{ name: string; engine: ClickHouseEngine; store: ClickHouseLogStore }> = [];
const mains: Array<{ name: string; database: TestDatabase; store: Store }> = [];
const workspaceA = scopeId("ws-parity-a");
const workspaceB = scopeId("ws-parity-b");
const config = newConfig({ workspaceId: workspaceA });
const records = dataset(workspaceA, workspaceB, config.id);

beforeAll(async () => {
  const sqliteUrl = sqliteTestUrl();
  const databases: Array<[string, TestDatabase]> = [
    ["sqlite", { url: sqliteUrl, cleanup: () => removeSqliteTestDatabase(sqliteUrl) }],
    ["postgres", await postgresTestUrl()],
  ];
  for (const [name, database] of databases) {
    const store = await openStore(database.url);
    await store.configs.create({ ...config });
    await store.logs.insertBatch(records);
    mains.push({ name, database, store });
  }
  const main = mains[0]!.store;
  for (const { engine: name, start } of CLICKHOUSE_ENGINES) {
    const engine = await start();
    const store = await openClickHouseLogStore(await engine.target("parity"), {
      resolveConfig: async (workspaceId, value) => (await main.configs.getBySlug(workspaceId, value))?.id ?? value,
    });
    clickhouses.push({ name, engine, store });
    // Two batches, so the rollups hold more than one insert's parts.
    await store.logs.insertBatch(records.slice(0, 300));
    await store.logs.insertBatch(records.slice(300));
  }
}, 120_000);

afterAll(async () => {
  for (const { store, engine } of clickhouses) {
    await store.close();
    await engine.remove();
  }
  for (const { store, database } of mains) {
    await store.close();
    await database.cleanup();
  }
});

function sides(): Side[] {
  return [...mains, ...clickhouses].map(({ name, store }) => ({ name, store }));
}

/** Every page of a listing, following the cursor. */
async function everyPage(store: LogStore, filters: Omit<LogFilters, "limit" | "before">, limit: number, bodies = false): Promise<LogRecord[]> {
  const all: LogRecord[] = [];
  let before: string | undefined;
  for (let page = 0; page < 1_000; page++) {
    const { records: got, hasMore } = await store.logs.list({ ...filters, limit, ...(before && { before }) }, { bodies });
    all.push(...got);
    if (!hasMore) return all;
    before = got[got.length - 1]!.id;
  }
  throw new Error("paging did not end");
}

/** Aggregates as plain data, sums rounded to 9 significant digits (the engines add floats in different orders). */
function plain(aggregates: SliceAggregates): unknown {
  const round = (value: number) => Number(value.toPrecision(9));
  return [...aggregates.entries()]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([key, aggregate]) => ({ key, ...aggregate, costUsd: round(aggregate.costUsd), costSavedUsd: round(aggregate.costSavedUsd) }));
}

const LIST_FILTERS: Array<[string, Omit<LogFilterSet, "workspaceId">]> = [
  ["no filter", {}],
  ["user", { user: "alice" }],
  ["model", { model: "gpt-4o" }],
  ["provider", { provider: "anthropic" }],
  ["status", { status: 429 }],
  ["success", { success: false }],
  ["trace", { traceId: "trace-7" }],
  ["prompt", { promptId: "prompt-a" }],
  ["virtual key", { virtualKeyId: "vk-1" }],
  ["experiment", { experimentId: EXPERIMENT }],
  ["experiment variant", { experimentId: EXPERIMENT, experimentVariant: "treatment" }],
  ["time range", { from: new Date(BASE + 5 * HOUR + 123).toISOString(), to: new Date(BASE + 30 * HOUR).toISOString() }],
  ["metadata", { metadata: { env: "prod" } }],
  ["two metadata pairs", { metadata: { env: "staging", team: "team-1" } }],
  ["quoted metadata", { metadata: { "quote'key": "va\\lue'" } }],
  ["status class", { statusClass: "4xx" }],
  ["cache status", { cacheStatus: "SEMANTIC_HIT" }],
  ["config by slug", { config: config.slug }],
  ["config by id", { config: config.id }],
  ["token range", { minTotalTokens: 100, maxTotalTokens: 400 }],
  ["cost range", { minCostUsd: 0.0005, maxCostUsd: 0.0015 }],
  ["latency range", { minLatencyMs: 100, maxLatencyMs: 2_000 }],
  ["ttft range", { minTimeToFirstTokenMs: 50, maxTimeToFirstTokenMs: 500 }],
  ["several", { model: "gpt-4o-mini", success: true, metadata: { env: "prod" }, minLatencyMs: 10 }],
];

describe("log store parity: main store and ClickHouse answer the same", () => {
  it.each(LIST_FILTERS)("lists logs (%s) with cursor paging", async (_name, filters) => {
    const expected = await everyPage(mains[0]!.store, { workspaceId: workspaceA, ...filters }, 37);
    expect(expected.length).toBeGreaterThan(0);
    for (const side of sides().slice(1)) {
      expect({ side: side.name, records: await everyPage(side.store, { workspaceId: workspaceA, ...filters }, 37) }).toEqual({ side: side.name, records: expected });
    }
  });

  it("exports every record with its bodies, and gets a log by id only in its workspace", async () => {
    const expected = await everyPage(mains[0]!.store, { workspaceId: workspaceA }, 500, true);
    expect(expected[0]!.requestBody).not.toBeNull();
    const sample = [records[1]!, records[9]!, records[350]!];
    for (const side of sides()) {
      expect(await everyPage(side.store, { workspaceId: workspaceA }, 500, true)).toEqual(expected);
      for (const record of sample) {
        expect(await side.store.logs.get(record.id, record.workspaceId)).toEqual(record);
        expect(await side.store.logs.get(record.id, "another-workspace")).toBeUndefined();
      }
      expect(await side.store.logs.count(workspaceB)).toBe(records.filter((record) => record.workspaceId === workspaceB).length);
    }
  });

  const range = { from: new Date(BASE + 17 * 60_000 + 321).toISOString(), to: new Date(BASE + 53 * HOUR + 3 * 60_000).toISOString() };
  const SLICES: Array<[string, AnalyticsSlice]> = [
    ["summary", { kind: "total" }],
    ["minute series", { kind: "time", interval: "minute" }],
    ["hour series", { kind: "time", interval: "hour" }],
    ["day series", { kind: "time", interval: "day" }],
    ["by user", { kind: "group", by: "user" }],
    ["by model", { kind: "group", by: "model" }],
    ["by provider", { kind: "group", by: "provider" }],
    ["by virtual key", { kind: "group", by: "virtual_key_id" }],
    ["by status", { kind: "group", by: "status" }],
    ["by experiment variant", { kind: "group", by: "experiment_variant" }],
    ["by metadata env", { kind: "group", by: "metadata", metadataKey: "env" }],
    ["by metadata team", { kind: "group", by: "metadata", metadataKey: "team" }],
    // Fewer than the groups there are: every store keeps the same first ones.
    ["top 2 users", { kind: "group", by: "user", limit: 2 }],
    ["top model", { kind: "group", by: "model", limit: 1 }],
    ["top 3 statuses", { kind: "group", by: "status", limit: 3 }],
    ["top 2 virtual keys", { kind: "group", by: "virtual_key_id", limit: 2 }],
    ["top 2 of metadata team", { kind: "group", by: "metadata", metadataKey: "team", limit: 2 }],
  ];
  const SELECTIONS: Array<[string, Omit<AnalyticsSelection, "workspaceId" | "from" | "to">]> = [
    ["everything", {}],
    ["one model", { model: "gpt-4o-mini" }],
    ["one user", { user: "bob" }],
    ["failures of a provider", { provider: "openai", success: false }],
    ["metadata", { metadata: { env: "prod" } }],
    ["status class", { statusClass: "5xx" }],
    ["an experiment", { experimentId: EXPERIMENT }],
  ];
  for (const [sliceName, slice] of SLICES) {
    it.each(SELECTIONS)(`analytics ${sliceName} (%s): rollups and raw rows agree across stores`, async (_name, filters) => {
      const selection: AnalyticsSelection = { workspaceId: workspaceA, ...range, ...filters };
      const expected = plain(await mains[0]!.store.analytics.aggregate(selection, slice, { via: "raw" }));
      if (slice.kind === "group" && slice.limit !== undefined) {
        const all = await mains[0]!.store.analytics.aggregate(selection, { ...slice, limit: undefined }, { via: "raw" });
        expect((expected as unknown[]).length).toBe(Math.min(slice.limit, all.size));
      }
      for (const side of sides()) {
        expect({ side: side.name, via: "raw", got: plain(await side.store.analytics.aggregate(selection, slice, { via: "raw" })) }).toEqual({
          side: side.name,
          via: "raw",
          got: expected,
        });
        expect({ side: side.name, got: plain(await side.store.analytics.aggregate(selection, slice)) }).toEqual({ side: side.name, got: expected });
      }
    });
  }

  it("keeps feedback per workspace and trace", async () => {
    const feedback = (i: number, workspaceId: string): FeedbackRecord => ({
      id: `0190${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`,
      organisationId: "org-default",
      workspaceId,
      ownerId: i % 2 === 0 ? "key-owner" : null,
      updatedBy: null,
      traceId: i < 3 ? "trace-1" : "trace-2",
      value: i - 2,
      weight: 0.5,
      metadata: i === 1 ? { reason: "it's fine" } : {},
      createdAt: new Date(BASE + i * 1000).toISOString(),
    });
    const written = [2, 0, 1, 3].map((i) => feedback(i, workspaceA));
    for (const side of sides()) {
      for (const record of written) await side.store.feedback.create(record);
      await side.store.feedback.create(feedback(4, workspaceB));
      expect(await side.store.feedback.listByTrace(workspaceA, "trace-1")).toEqual([0, 1, 2].map((i) => feedback(i, workspaceA)));
      expect(await side.store.feedback.listByTrace(workspaceB, "trace-1")).toEqual([]);
    }
  });

  it("sums an experiment's variants and the feedback on their traces alike", async () => {
    const traced = records.find((record) => record.experimentVariant === "treatment" && record.workspaceId === workspaceA)!;
    const feedback = (i: number): FeedbackRecord => ({
      id: `0190${String(i).padStart(4, "0")}-0000-7000-8000-00000000f000`,
      organisationId: "org-default",
      workspaceId: workspaceA,
      ownerId: null,
      updatedBy: null,
      traceId: traced.traceId,
      value: i,
      weight: 1,
      metadata: {},
      createdAt: new Date(BASE + i * 1000).toISOString(),
    });
    const round = (totals: Awaited<ReturnType<LogStore["experimentOutcomes"]["variantTotals"]>>) =>
      JSON.parse(JSON.stringify([...totals].sort((a, b) => a.variant.localeCompare(b.variant)), (_key, value) => (typeof value === "number" ? Number(value.toPrecision(9)) : value)));
    let expected: unknown = null;
    for (const side of sides()) {
      for (const i of [3, -1]) await side.store.feedback.create(feedback(i));
      const totals = round(await side.store.experimentOutcomes.variantTotals(workspaceA, EXPERIMENT, new Date(BASE).toISOString()));
      expect(totals.map((variant: { variant: string }) => variant.variant)).toEqual(["control", "treatment"]);
      expect(totals[1].feedback.n).toBeGreaterThanOrEqual(2);
      expected ??= totals;
      expect({ side: side.name, totals }).toEqual({ side: side.name, totals: expected });
    }
  });
});
