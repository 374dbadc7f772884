import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { Aggregate, AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import { compareGroups, groupView } from "../analytics/analytics-views.ts";
import { bucketOf } from "../analytics/latency-histogram.ts";
import type { LogRecord } from "../records/log-record.ts";
import type { AnalyticsSelection } from "./analytics-repository.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const MINUTE = 60_000;
const USERS = ["alice", "bob", null] as const;
const MODELS = ["gpt-4o", "gpt-4o-mini", "claude-3"] as const;

/** 240 records over 68 hours (so whole days and hours, and partial ones), every dimension varied, latencies spread over many buckets. */
function records(workspaceId: string): LogRecord[] {
  return Array.from({ length: 240 }, (_, i) => {
    const status = [200, 200, 200, 429, 500][i % 5]!;
    return logRecord(
      T0 + i * 17 * MINUTE + (i % 7) * 1000,
      {
        workspaceId,
        user: USERS[i % 3]!,
        model: MODELS[i % 4 === 3 ? 2 : i % 2]!,
        provider: i % 4 === 3 ? "anthropic" : "openai",
        virtualKeyId: i % 6 === 0 ? null : `vk-${i % 2}`,
        status,
        success: status === 200,
        latencyMs: 0.4 + (i * 37) % 5000,
        timeToFirstTokenMs: i % 3 === 0 ? null : 5 + (i % 50) * 3.3,
        costUsd: i % 8 === 0 ? null : 0.0001 * (i % 13),
        promptTokens: i % 11,
        completionTokens: (i * 3) % 17,
        totalTokens: (i % 11) + ((i * 3) % 17),
        metadata: { team: i % 2 === 0 ? "red" : "blue" },
        traceId: `trace-${i % 4}`,
      },
      i,
    );
  });
}

/** The aggregates computed here from the records, the reference both store paths must match. */
function expected(all: readonly LogRecord[], keep: (r: LogRecord) => boolean, keyOf: (r: LogRecord) => string | null): Map<string | null, object> {
  const out = new Map<string | null, { requests: number; errors: number; costUsd: number; totalTokens: number; promptTokens: number; latency: number[] }>();
  for (const record of all.filter(keep)) {
    const key = keyOf(record);
    const entry = out.get(key) ?? { requests: 0, errors: 0, costUsd: 0, totalTokens: 0, promptTokens: 0, latency: new Array<number>(64).fill(0) };
    entry.requests += 1;
    entry.errors += record.success ? 0 : 1;
    entry.costUsd = round(entry.costUsd + (record.costUsd ?? 0));
    entry.totalTokens += record.totalTokens;
    entry.promptTokens += record.promptTokens;
    entry.latency[bucketOf(record.latencyMs)]! += 1;
    out.set(key, entry);
  }
  return out;
}

const round = (n: number) => Math.round(n * 1e9) / 1e9;

function comparable(aggregates: SliceAggregates): Map<string | null, object> {
  return new Map(
    [...aggregates].map(([key, a]: [string | null, Aggregate]) => [
      key,
      { requests: a.requests, errors: a.errors, costUsd: round(a.costUsd), totalTokens: a.totalTokens, promptTokens: a.promptTokens, latency: a.latency.counts },
    ]),
  );
}

describe.each(TEST_DATABASES)("analytics on $name", ({ create }) => {
  const store = useStore(create);
  const workspaceId = scopeId("ws");
  const data = records(workspaceId);
  // Starts and ends mid-hour and mid-day, so both paths mix rollups with raw edges.
  const from = new Date(T0 + 25 * MINUTE).toISOString();
  const to = new Date(T0 + 62 * 60 * MINUTE + 30_000).toISOString();
  const inRange = (r: LogRecord) => r.createdAt >= from && r.createdAt < to;

  it("stores rollups as batches arrive, counting a retried batch once", async () => {
    await store().logs.insertBatch(data.slice(0, 100));
    await store().logs.insertBatch(data.slice(50));
    await store().logs.insertBatch(records(scopeId("other")));
    const row = await store()
      .db.selectFrom("log_rollups")
      .select(sql<number>`sum(requests)`.as("requests"))
      .where("workspace_id", "=", workspaceId)
      .where("dim", "=", "all")
      .executeTakeFirstOrThrow();
    expect(Number(row.requests)).toBe(240);
  });

  const cases: Array<[string, Partial<AnalyticsSelection>, AnalyticsSlice, (r: LogRecord) => boolean, (r: LogRecord) => string | null]> = [
    ["total", {}, { kind: "total" }, () => true, () => ""],
    ["total by model", { model: "gpt-4o" }, { kind: "total" }, (r) => r.model === "gpt-4o", () => ""],
    ["total of failures of a status", { status: 500, success: false }, { kind: "total" }, (r) => r.status === 500, () => ""],
    ["hourly", {}, { kind: "time", interval: "hour" }, () => true, (r) => `${r.createdAt.slice(0, 13)}:00:00.000Z`],
    ["daily for a user", { user: "alice" }, { kind: "time", interval: "day" }, (r) => r.user === "alice", (r) => `${r.createdAt.slice(0, 10)}T00:00:00.000Z`],
    ["hourly for a user (raw only)", { user: "alice" }, { kind: "time", interval: "hour" }, (r) => r.user === "alice", (r) => `${r.createdAt.slice(0, 13)}:00:00.000Z`],
    ["total for a user", { user: "bob" }, { kind: "total" }, (r) => r.user === "bob", () => ""],
    ["by minute", {}, { kind: "time", interval: "minute" }, () => true, (r) => `${r.createdAt.slice(0, 16)}:00.000Z`],
    ["by user", {}, { kind: "group", by: "user" }, () => true, (r) => r.user],
    ["by virtual key, successes", { success: true }, { kind: "group", by: "virtual_key_id" }, (r) => r.success, (r) => r.virtualKeyId],
    ["by status", {}, { kind: "group", by: "status" }, () => true, (r) => String(r.status)],
    ["by provider within a provider", { provider: "openai" }, { kind: "group", by: "provider" }, (r) => r.provider === "openai", (r) => r.provider],
    ["by model for a user (raw only)", { user: "bob" }, { kind: "group", by: "model" }, (r) => r.user === "bob", (r) => r.model],
    ["by metadata", {}, { kind: "group", by: "metadata", metadataKey: "team" }, () => true, (r) => r.metadata.team ?? null],
    ["by metadata key nobody has", {}, { kind: "group", by: "metadata", metadataKey: "nope" }, () => true, () => null],
    ["total with a metadata filter", { metadata: { team: "red" } }, { kind: "total" }, (r) => r.metadata.team === "red", () => ""],
    ["total of a trace", { traceId: "trace-1" }, { kind: "total" }, (r) => r.traceId === "trace-1", () => ""],
  ];

  it.each(cases)("%s: rollup path, raw path and the records agree", async (_name, filters, slice, keep, keyOf) => {
    const selection: AnalyticsSelection = { workspaceId, from, to, ...filters };
    const want = expected(data, (r) => inRange(r) && keep(r), keyOf);
    expect(comparable(await store().analytics.aggregate(selection, slice))).toEqual(want);
    expect(comparable(await store().analytics.aggregate(selection, slice, { via: "raw" }))).toEqual(want);
  });

  const limited: Array<[string, Partial<AnalyticsSelection>, AnalyticsSlice & { kind: "group" }]> = [
    ["by user", {}, { kind: "group", by: "user" }],
    ["by model", {}, { kind: "group", by: "model" }],
    ["by status, failures", { success: false }, { kind: "group", by: "status" }],
    ["by virtual key", {}, { kind: "group", by: "virtual_key_id" }],
    ["by model for a user (raw only)", { user: "bob" }, { kind: "group", by: "model" }],
    ["by metadata", {}, { kind: "group", by: "metadata", metadataKey: "team" }],
  ];

  it.each(limited)("%s with a limit: the first groups of the full answer, in the route's order, on both paths", async (_name, filters, slice) => {
    const selection: AnalyticsSelection = { workspaceId, from, to, ...filters };
    const all = await store().analytics.aggregate(selection, slice);
    const order = [...all].map(([key, a]) => groupView(key, a)).sort(compareGroups).map((group) => group.key);
    expect(order.length).toBeGreaterThan(1);
    for (const limit of [1, order.length - 1, order.length + 5]) {
      for (const via of [undefined, "raw"] as const) {
        const top = await store().analytics.aggregate(selection, { ...slice, limit }, via && { via });
        expect([...top.keys()].sort()).toEqual(order.slice(0, limit).sort());
        expect(comparable(top)).toEqual(new Map([...comparable(all)].filter(([key]) => top.has(key))));
      }
    }
  });

  it("orders tied groups by key with the null group last, as the route does", async () => {
    const ties = scopeId("ws-ties");
    const users = ["carol", null, "alice", "bob", "ähm", "Zed"];
    // Equal cost and count for every user, in whole days (rollups) and at the edges (raw rows).
    const tied = users.flatMap((user, u) =>
      [0, 30 * 60 * MINUTE, 61 * 60 * MINUTE].map((offset, j) =>
        logRecord(T0 + offset + u * 1000, { workspaceId: ties, user, costUsd: 0.1 + 0.2, model: "m" }, 1000 + u * 10 + j),
      ),
    );
    await store().logs.insertBatch(tied);
    const selection: AnalyticsSelection = { workspaceId: ties, from, to };
    const all = await store().analytics.aggregate(selection, { kind: "group", by: "user" });
    const order = [...all].map(([key, a]) => groupView(key, a)).sort(compareGroups).map((group) => group.key);
    expect(order).toEqual(["Zed", "alice", "bob", "carol", "ähm", null]);
    for (const limit of [1, 3, 5]) {
      for (const via of [undefined, "raw"] as const) {
        const top = await store().analytics.aggregate(selection, { kind: "group", by: "user", limit }, via && { via });
        expect(new Set(top.keys())).toEqual(new Set(order.slice(0, limit)));
      }
    }
  });

  it("gives the same time-to-first-token histogram and extremes on both paths", async () => {
    const selection: AnalyticsSelection = { workspaceId, from, to };
    const viaRollup = (await store().analytics.aggregate(selection, { kind: "total" })).get("");
    const viaRaw = (await store().analytics.aggregate(selection, { kind: "total" }, { via: "raw" })).get("");
    const ttfts = data.filter(inRange).flatMap((r) => (r.timeToFirstTokenMs === null ? [] : [r.timeToFirstTokenMs]));
    expect(viaRollup?.ttft).toEqual(viaRaw?.ttft);
    expect(viaRollup?.ttft.min).toBe(Math.min(...ttfts));
    expect(viaRollup?.ttft.max).toBe(Math.max(...ttfts));
    expect(viaRollup?.ttft.counts.reduce((a, b) => a + b, 0)).toBe(ttfts.length);
  });

  it("answers nothing for another workspace or an empty range", async () => {
    expect((await store().analytics.aggregate({ workspaceId: scopeId("ws"), from, to }, { kind: "total" })).size).toBe(0);
    const empty = { workspaceId, from: "2020-01-01T00:00:00.000Z", to: "2020-01-03T00:00:00.000Z" };
    expect((await store().analytics.aggregate(empty, { kind: "group", by: "user" })).size).toBe(0);
  });
});
