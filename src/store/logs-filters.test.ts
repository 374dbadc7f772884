import { beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { LogFilters } from "../records/log-record.ts";
import { logRecord, newConfig, scopeId, useStore, uuidv7At } from "./store-test-fixtures.ts";

const DAY = 86_400_000;
const JAN_1 = Date.parse("2026-01-01T00:00:00.000Z");

describe.each(TEST_DATABASES)("log filters on $name", ({ create }) => {
  const store = useStore(create);
  const workspaceId = scopeId("ws");
  const otherWorkspaceId = scopeId("ws");
  const base = { workspaceId };
  const configA = newConfig({ workspaceId });
  const configB = newConfig({ workspaceId });
  // A config of another workspace: its slug names nothing here, even for a log that carries its id.
  const foreignConfig = newConfig({ workspaceId: otherWorkspaceId });
  const r1 = logRecord(JAN_1, {
    ...base, user: "alice", model: "gpt-4o", provider: "openai", status: 200, success: true, traceId: "t1", metadata: { env: "prod", team: "a" },
    totalTokens: 10, costUsd: 0.001, latencyMs: 100, timeToFirstTokenMs: 50, configId: configA.id, configVersion: 1,
  });
  const r2 = logRecord(JAN_1 + DAY, {
    ...base, user: "bob", model: "gpt-4o-mini", provider: "openai", status: 500, success: false, traceId: "t1", promptId: "prompt-b", metadata: { env: "prod", team: "b" },
    totalTokens: 20, costUsd: null, latencyMs: 200, timeToFirstTokenMs: null, configId: configB.id, configVersion: 3,
  });
  const r3 = logRecord(JAN_1 + 2 * DAY, {
    ...base, user: "alice", model: "claude-3", provider: "anthropic", status: 429, success: false, traceId: "t2", metadata: { env: "dev", team: "a" },
    totalTokens: 30, costUsd: 0.003, latencyMs: 300, timeToFirstTokenMs: 150, configId: foreignConfig.id, configVersion: 1,
  });
  const r4 = logRecord(JAN_1 + 3 * DAY, {
    ...base, user: null, model: null, provider: null, status: 200, success: true, traceId: "t3", metadata: {},
    totalTokens: 0, costUsd: 0, latencyMs: 50.5, timeToFirstTokenMs: null, configId: null, configVersion: null,
  });
  // Matches every filter below that r1 matches, but in another workspace: must never appear.
  const intruder = { ...r1, id: uuidv7At(JAN_1 + 4 * DAY), workspaceId: otherWorkspaceId };
  const names = new Map([[r1.id, "r1"], [r2.id, "r2"], [r3.id, "r3"], [r4.id, "r4"], [intruder.id, "intruder"]]);

  async function listed(filters: Omit<LogFilters, "workspaceId" | "limit">): Promise<string[]> {
    const { records } = await store().logs.list({ workspaceId, limit: 100, ...filters });
    return records.map((record) => names.get(record.id) ?? record.id);
  }

  beforeAll(async () => {
    for (const config of [configA, configB, foreignConfig]) await store().configs.create(config);
    await store().logs.insertBatch([r3, intruder, r1, r4, r2]);
  });

  it("stores the fixture in its two workspaces", async () => {
    expect(await store().logs.count(workspaceId)).toBe(4);
    expect(await store().logs.count(otherWorkspaceId)).toBe(1);
  });

  it.each<[string, Omit<LogFilters, "workspaceId" | "limit">, string[]]>([
    ["no filter", {}, ["r4", "r3", "r2", "r1"]],
    ["user", { user: "alice" }, ["r3", "r1"]],
    ["model (exact, not prefix)", { model: "gpt-4o" }, ["r1"]],
    ["provider", { provider: "openai" }, ["r2", "r1"]],
    ["status", { status: 500 }, ["r2"]],
    ["success true", { success: true }, ["r4", "r1"]],
    ["success false", { success: false }, ["r3", "r2"]],
    ["traceId", { traceId: "t1" }, ["r2", "r1"]],
    ["promptId", { promptId: "prompt-b" }, ["r2"]],
    ["from (inclusive)", { from: "2026-01-02T00:00:00.000Z" }, ["r4", "r3", "r2"]],
    ["to (exclusive)", { to: "2026-01-03T00:00:00.000Z" }, ["r2", "r1"]],
    ["from and to", { from: "2026-01-02T00:00:00.000Z", to: "2026-01-04T00:00:00.000Z" }, ["r3", "r2"]],
    ["from with an offset", { from: "2026-01-02T01:00:00+01:00" }, ["r4", "r3", "r2"]],
    ["one metadata pair", { metadata: { env: "prod" } }, ["r2", "r1"]],
    ["two metadata pairs (both must match)", { metadata: { env: "prod", team: "a" } }, ["r1"]],
    ["metadata value of another key", { metadata: { team: "prod" } }, []],
    ["filters combined", { user: "alice", success: false }, ["r3"]],
    ["status class 2xx", { statusClass: "2xx" }, ["r4", "r1"]],
    ["status class 4xx", { statusClass: "4xx" }, ["r3"]],
    ["status class 5xx", { statusClass: "5xx" }, ["r2"]],
    ["config by id", { config: configA.id }, ["r1"]],
    ["config by slug", { config: configB.slug }, ["r2"]],
    ["config by another workspace's slug", { config: foreignConfig.slug }, []],
    ["config by an unknown slug", { config: "pc-nothing-0000" }, []],
    ["min total tokens (inclusive)", { minTotalTokens: 20 }, ["r3", "r2"]],
    ["max total tokens (inclusive)", { maxTotalTokens: 10 }, ["r4", "r1"]],
    ["total tokens between", { minTotalTokens: 10, maxTotalTokens: 20 }, ["r2", "r1"]],
    ["min cost (no unknown cost)", { minCostUsd: 0 }, ["r4", "r3", "r1"]],
    ["max cost (inclusive)", { maxCostUsd: 0.001 }, ["r4", "r1"]],
    ["min latency", { minLatencyMs: 100 }, ["r3", "r2", "r1"]],
    ["max latency (fractional)", { maxLatencyMs: 50.5 }, ["r4"]],
    ["min time to first token (none never match)", { minTimeToFirstTokenMs: 0 }, ["r3", "r1"]],
    ["max time to first token", { maxTimeToFirstTokenMs: 100 }, ["r1"]],
    ["a range with another filter", { minLatencyMs: 100, statusClass: "2xx", config: configA.slug }, ["r1"]],
  ])("filters by %s", async (_name, filters, expected) => {
    expect(await listed(filters)).toEqual(expected);
  });

  it("pages a filtered list with before and limit", async () => {
    const first = await store().logs.list({ workspaceId, provider: "openai", limit: 1 });
    expect(first.records.map((r) => names.get(r.id))).toEqual(["r2"]);
    expect(first.hasMore).toBe(true);
    const second = await store().logs.list({ workspaceId, provider: "openai", limit: 1, before: r2.id });
    expect(second.records.map((r) => names.get(r.id))).toEqual(["r1"]);
    expect(second.hasMore).toBe(false);
  });

  it("finds the other workspace's record only in that workspace", async () => {
    expect(await listed({ metadata: { env: "prod", team: "a" }, user: "alice" })).toEqual(["r1"]);
    const { records } = await store().logs.list({ workspaceId: otherWorkspaceId, limit: 10 });
    expect(records.map((r) => names.get(r.id))).toEqual(["intruder"]);
  });
});
