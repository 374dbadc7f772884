import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import type { LogRecord } from "../src/records/log-record.ts";
import { LOG_STORES, type LogStoreSetup } from "./support/log-stores.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

const HOUR = 3_600_000;

/** The exact nearest-rank percentile, which the histogram's answer must be within a bucket of. */
function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/**
 * Within half a bucket (a factor 2^(1/6)) of the exact value, give or take the API's rounding to
 * 0.01 ms (2.8284 read as 2.83 is more than the factor above 2.52), or within 1 ms below 1 ms.
 */
function expectNear(actual: number | null, exact: number): void {
  expect(actual).not.toBeNull();
  const value = actual ?? Number.NaN;
  if (exact < 1) expect(Math.abs(value - exact)).toBeLessThanOrEqual(1);
  else expect(value).toBeGreaterThanOrEqual(exact / 1.123 - 0.005), expect(value).toBeLessThanOrEqual(exact * 1.123 + 0.005);
}

const round = (n: number) => Math.round(n * 1e9) / 1e9;

describe.each(LOG_STORES)("/v1/analytics on $store", ({ setup }) => {
  let gateway: RunningGateway;
  let upstream: LLMock;
  let logStore: LogStoreSetup | undefined;
  let otherKey: string;
  let logs: LogRecord[];
  // Whole hours around now: the rollups answer them (the logs are all in this hour or the last).
  const from = new Date(Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR).toISOString();
  const to = new Date(Math.floor(Date.now() / HOUR) * HOUR + 2 * HOUR).toISOString();
  const range = `from=${from}&to=${to}`;

  beforeAll(async () => {
    // Schemas compiled before any connection opens, so no keep-alive socket idles through it.
    for (const operation of ["getAnalyticsSummary", "getAnalyticsTimeseries", "getAnalyticsGroups", "setAnalyticsDimensions"]) gatewayContractProblems(operation, 200, {});
    upstream = await startUpstream();
    upstream.onMessage("hello", { content: "Hello back" });
    logStore = await setup();
    gateway = await startGateway(logStore.overrides);
    for (let i = 0; i < 7; i++) {
      const response = await call(gateway, "POST", "/v1/chat/completions", {
        body: { model: i % 3 === 0 ? "gpt-4o" : "gpt-4o-mini", user: `user-${i % 2}`, stream: i === 6, messages: [{ role: "user", content: "hello" }] },
        headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-metadata": JSON.stringify(i < 5 ? { team: i < 3 ? "search" : "ads" } : {}) },
      });
      expect(response.status).toBe(200);
    }
    const failed = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o", user: "user-0", messages: [{ role: "user", content: "hello" }] },
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-provider": "nope" },
    });
    expect(failed.status).toBe(400);
    const other = await call(gateway, "POST", "/v1/api-keys", {
      body: { name: "elsewhere", role: "service", workspace_id: "5d1f0c47-2b0e-4f7a-9e43-2a8b8f3c1d20" },
    });
    otherKey = other.body.key;
    const theirs = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o", user: "user-0", messages: [{ role: "user", content: "hello" }] },
      headers: upstreamHeaders(gateway, upstream, otherKey),
    });
    expect(theirs.status).toBe(200);
    await gateway.flushLogs();
    logs = (await gateway.gateway.deps.store.logs.list({ workspaceId: DEFAULT_WORKSPACE_ID, limit: 200 })).records;
    expect(logs).toHaveLength(8);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.stop();
    await logStore?.cleanup();
  });

  const get = (path: string, key?: string) => call(gateway, "GET", `/v1/analytics/${path}`, { key });

  function expectTotals(body: Record<string, unknown>, records: LogRecord[]): void {
    expect(body.requests).toBe(records.length);
    expect(body.errors).toBe(records.filter((r) => !r.success).length);
    expect(body.cost_usd).toBeCloseTo(round(records.reduce((sum, r) => sum + (r.costUsd ?? 0), 0)), 9);
    expect(body.total_tokens).toBe(records.reduce((sum, r) => sum + r.totalTokens, 0));
  }

  it("sums the workspace's requests, with latency percentiles read from the histogram", async () => {
    const summary = await get(`summary?${range}`);
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ object: "analytics.summary", from, to });
    expectTotals(summary.body, logs);
    expect(summary.body.error_rate).toBeCloseTo(1 / 8, 9);
    expect(summary.body.prompt_tokens).toBe(logs.reduce((sum, r) => sum + r.promptTokens, 0));
    expect(summary.body.completion_tokens).toBe(logs.reduce((sum, r) => sum + r.completionTokens, 0));
    expect(summary.body.cost_usd).toBeGreaterThan(0);
    const latencies = logs.map((r) => r.latencyMs);
    for (const p of [0.5, 0.95, 0.99] as const) expectNear(summary.body.latency_ms[`p${p * 100}`], exactPercentile(latencies, p));
    const ttft = logs.flatMap((r) => (r.timeToFirstTokenMs === null ? [] : [r.timeToFirstTokenMs]));
    expect(ttft.length).toBeGreaterThan(0);
    for (const p of [0.5, 0.95, 0.99] as const) expectNear(summary.body.time_to_first_token_ms[`p${p * 100}`], exactPercentile(ttft, p));
  });

  it("applies the filters of GET /v1/logs, the default 24 hours included", async () => {
    const cases: Array<[string, (r: LogRecord) => boolean]> = [
      ["model=gpt-4o", (r) => r.model === "gpt-4o"],
      ["user=user-0", (r) => r.user === "user-0"],
      ["success=false", (r) => !r.success],
      ["status=200&provider=openai", (r) => r.status === 200 && r.provider === "openai"],
      ["metadata[team]=ads", (r) => r.metadata.team === "ads"],
      [`trace_id=${logs[2]!.traceId}`, (r) => r.traceId === logs[2]!.traceId],
    ];
    for (const [query, keep] of cases) {
      const summary = await get(`summary?${range}&${query}`);
      expectTotals(summary.body, logs.filter(keep));
      const byDefault = await get(`summary?${query}`);
      expectTotals(byDefault.body, logs.filter(keep));
    }
    const none = await get(`summary?${range}&model=nothing-like-it`);
    expect(none.body).toMatchObject({ requests: 0, errors: 0, error_rate: 0, cost_usd: 0, latency_ms: { p50: null, p95: null, p99: null } });
  });

  it("answers the same from the rollups and from the raw rows", async () => {
    const analytics = gateway.gateway.deps.store.analytics;
    const selection = { workspaceId: DEFAULT_WORKSPACE_ID, from, to };
    for (const slice of [{ kind: "total" }, { kind: "time", interval: "hour" }, { kind: "group", by: "model" }, { kind: "group", by: "user" }] as const) {
      const viaRollup = await analytics.aggregate(selection, slice);
      const viaRaw = await analytics.aggregate(selection, slice, { via: "raw" });
      // Sums of floats differ in their last bits with the order of addition.
      // The two paths may meet the groups in another order: compare them by key.
      const costless = (map: typeof viaRaw) =>
        [...map].map(([key, a]) => [key, { ...a, costUsd: round(a.costUsd) }] as const).sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
      expect(costless(viaRollup)).toEqual(costless(viaRaw));
      expect(viaRollup.size).toBeGreaterThan(0);
    }
  });

  it("gives every bucket of the range in order, empty ones as zeros", async () => {
    const series = await get(`timeseries?${range}`);
    expect(series.status).toBe(200);
    expect(series.body).toMatchObject({ object: "analytics.timeseries", interval: "hour", from, to });
    expect(series.body.data.map((point: { start: string }) => point.start)).toEqual([0, 1, 2, 3].map((i) => new Date(Date.parse(from) + i * HOUR).toISOString()));
    expect(series.body.data.reduce((sum: number, point: { requests: number }) => sum + point.requests, 0)).toBe(8);
    expect(series.body.data[0]).toEqual({ start: from, requests: 0, errors: 0, error_rate: 0, cost_usd: 0, cost_saved_usd: 0, cache_hits: 0, semantic_cache_hits: 0, total_tokens: 0, latency_ms: { p50: null, p95: null, p99: null } });

    const minutes = await get(`timeseries?from=${new Date(Date.now() - 30 * 60_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(minutes.body.interval).toBe("minute");
    expect(minutes.body.data.length).toBeGreaterThanOrEqual(31);
    expect(minutes.body.data.every((point: { start: string }) => point.start.endsWith(":00.000Z"))).toBe(true);
    expect(minutes.body.data.reduce((sum: number, point: { requests: number }) => sum + point.requests, 0)).toBe(8);
    const days = await get(`timeseries?${range}&interval=day`);
    expect(days.body.data.at(-1).start.endsWith("T00:00:00.000Z")).toBe(true);
  });

  it("groups by model, user, status and a metadata key, costliest first", async () => {
    const byModel = await get(`groups?${range}&by=model`);
    expect(byModel.status).toBe(200);
    expect(byModel.body).toMatchObject({ object: "analytics.groups", by: "model", from, to });
    expect(byModel.body.metadata_key).toBeUndefined();
    for (const group of byModel.body.data) expectTotals(group, logs.filter((r) => r.model === group.key));
    const costs = byModel.body.data.map((group: { cost_usd: number }) => group.cost_usd);
    expect([...costs].sort((a, b) => b - a)).toEqual(costs);

    const byStatus = await get(`groups?${range}&by=status`);
    expect(Object.fromEntries(byStatus.body.data.map((g: { key: string; requests: number }) => [g.key, g.requests]))).toEqual({ "200": 7, "400": 1 });
    const byTeam = await get(`groups?${range}&by=metadata&metadata_key=team`);
    expect(byTeam.body.metadata_key).toBe("team");
    expect(Object.fromEntries(byTeam.body.data.map((g: { key: string | null; requests: number }) => [String(g.key), g.requests]))).toEqual({ search: 3, ads: 2, null: 3 });
    const top = await get(`groups?${range}&by=user&limit=1`);
    expect(top.body.data).toHaveLength(1);
  });

  it("declares metadata keys as dimensions (admin only, audited), and answers by a declared key as before", async () => {
    const byTeamBefore = await get(`groups?${range}&by=metadata&metadata_key=team`);
    const teamBefore = await get(`summary?${range}&metadata[team]=search`);
    const put = (body: unknown, key?: string) => call(gateway, "PUT", "/v1/analytics/dimensions", { body, key });
    expect((await put({ metadata_keys: ["a", "b", "c", "d", "e", "f"] })).status).toBe(400);
    expect((await put({ metadata_keys: ["team", "team"] })).status).toBe(400);
    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "dims-service", role: "service" } });
    const denied = await put({ metadata_keys: ["team"] }, service.body.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scope");

    const declared = await put({ metadata_keys: ["team", "region"] });
    expect(declared.status).toBe(200);
    expect(gatewayContractProblems("setAnalyticsDimensions", 200, declared.body)).toEqual([]);
    expect(declared.body.metadata_keys.map((k: { key: string }) => k.key)).toEqual(["region", "team"]);
    expect(declared.body.max_values_per_period).toBe(1000);
    const listed = await call(gateway, "GET", "/v1/analytics/dimensions", { key: service.body.key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(declared.body);
    expect((await call(gateway, "GET", "/v1/analytics/dimensions", { key: otherKey })).body.metadata_keys).toEqual([]);

    const events = await call(gateway, "GET", "/v1/audit-events?action=analytics_dimensions.updated");
    expect(events.status).toBe(200);
    expect(events.body.data[0]).toMatchObject({ action: "analytics_dimensions.updated", resource_type: "analytics_dimensions", before: { metadata_keys: [] } });
    expect(events.body.data[0].after.metadata_keys.map((k: { key: string }) => k.key)).toEqual(["region", "team"]);

    // The rows were stored before the declaration: the answers stay the raw rows'.
    expect((await get(`groups?${range}&by=metadata&metadata_key=team`)).body).toEqual(byTeamBefore.body);
    expect((await get(`summary?${range}&metadata[team]=search`)).body).toEqual(teamBefore.body);
    const kept = await put({ metadata_keys: ["team"] });
    expect(kept.body.metadata_keys).toEqual(declared.body.metadata_keys.filter((k: { key: string }) => k.key === "team"));
  });

  it("shows another workspace only its own requests", async () => {
    const theirs = await get(`summary?${range}`, otherKey);
    expect(theirs.body.requests).toBe(1);
    const groups = await get(`groups?${range}&by=user`, otherKey);
    expect(groups.body.data.map((g: { requests: number }) => g.requests)).toEqual([1]);
    expect((await get(`summary?${range}`)).body.requests).toBe(8);
  });

  it.each([
    ["summary?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
    ["summary?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
    ["summary?from=yesterday", "from"],
    ["summary?status=99", "status"],
    ["timeseries?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z&interval=minute", "interval"],
    ["timeseries?interval=week", "interval"],
    ["groups", "by"],
    ["groups?by=metadata", "metadata_key"],
    ["groups?by=user&metadata_key=team", "metadata_key"],
    ["groups?by=user&limit=0", "limit"],
    ["groups?by=user&limit=201", "limit"],
  ])("GET /v1/analytics/%s is a 400 naming %s", async (path, param) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: "invalid_request_error", param });
    expect(typeof response.body.error.message).toBe("string");
  });

  it("answers as the document says, with data and without", async () => {
    for (const query of [range, "model=nothing-like-it"]) {
      expect(gatewayContractProblems("getAnalyticsSummary", 200, (await get(`summary?${query}`)).body)).toEqual([]);
      expect(gatewayContractProblems("getAnalyticsTimeseries", 200, (await get(`timeseries?${query}`)).body)).toEqual([]);
      expect(gatewayContractProblems("getAnalyticsGroups", 200, (await get(`groups?by=user&${query}`)).body)).toEqual([]);
    }
    expect(gatewayContractProblems("getAnalyticsGroups", 200, (await get(`groups?by=metadata&metadata_key=team&${range}`)).body)).toEqual([]);
  });

  it("needs a gateway key", async () => {
    expect((await call(gateway, "GET", "/v1/analytics/summary", { key: null })).status).toBe(401);
  });
});
