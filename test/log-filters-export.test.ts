import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { csvObjects } from "./support/csv.ts";
import { LOG_STORES, type LogStoreSetup } from "./support/log-stores.ts";
import { call, openaiClient, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

interface Summary {
  id: string;
  status: number;
  user: string | null;
  usage: { total_tokens: number };
  cost_usd: number | null;
  latency_ms: number;
  time_to_first_token_ms: number | null;
  config_id: string | null;
  config_version: number | null;
  [field: string]: unknown;
}

const FORMULA_USER = '=HYPERLINK("http://evil.example","click")';

// The same gateway, end to end, on each log store.
describe.each(LOG_STORES)("log filters and export on $store", ({ setup }) => {
  let gateway: RunningGateway;
  let upstream: LLMock;
  let logStore: LogStoreSetup | undefined;
  let all: Summary[];
  const configs: Record<"a" | "b", { id: string; slug: string }> = { a: { id: "", slug: "" }, b: { id: "", slug: "" } };

  const chat = (content: string, headers: Record<string, string> = {}, user?: string) =>
    call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", user, messages: [{ role: "user", content }] },
      headers: { ...upstreamHeaders(gateway, upstream), ...headers },
    });
  /** Through a stored config only: its provider and host, the upstream key from `Authorization`. */
  const viaConfig = (slug: string) =>
    call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
      headers: { "x-gateway-config": slug, authorization: "Bearer sk-upstream" },
    });
  const logs = async (query: string, key?: string): Promise<Summary[]> => {
    const page = await call(gateway, "GET", `/v1/logs?limit=200${query}`, { key });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    return page.body.data;
  };
  const exported = async (query: string, key?: string) => {
    const response = await fetch(`${gateway.url}/v1/logs/export${query}`, { headers: { "x-gateway-api-key": key ?? gateway.adminKey } });
    return { response, text: await response.text() };
  };
  const ids = (records: Array<{ id: string }>) => records.map((record) => record.id);

  beforeAll(async () => {
    upstream = await startUpstream();
    upstream.onMessage("hello", { content: "Hello back" });
    upstream.onMessage("longer", { content: "A much longer answer with many more words in it than the others." });
    logStore = await setup();
    gateway = await startGateway(logStore.overrides);

    for (let i = 0; i < 4; i++) expect((await chat(i % 2 === 0 ? "hello" : "longer", {}, `user-${i}`)).status).toBe(200);
    expect((await chat("hello", {}, FORMULA_USER)).status).toBe(200);
    // A stream: the one kind of record with a time to first token.
    const stream = await openaiClient(gateway, upstream).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "longer" }], stream: true });
    for await (const _chunk of stream) void _chunk;
    upstream.nextRequestError(500, { message: "upstream broke", type: "server_error", code: "internal" });
    expect((await chat("hello")).status).toBe(500);
    expect((await chat("hello", { "x-gateway-provider": "nope" })).status).toBe(400);

    for (const name of ["a", "b"] as const) {
      const created = await call(gateway, "POST", "/v1/configs", { body: { name: `config ${name}`, config: { provider: "openai", custom_host: `${upstream.url}/v1` } } });
      expect(created.status).toBe(201);
      configs[name] = { id: created.body.id, slug: created.body.slug };
    }
    expect((await viaConfig(configs.a.slug)).status).toBe(200);
    const updated = await call(gateway, "PUT", `/v1/configs/${configs.a.slug}`, { body: { config: { provider: "openai", custom_host: `${upstream.url}/v1`, request_timeout: 30_000 } } });
    expect(updated.status).toBe(200);
    expect((await viaConfig(configs.a.slug)).status).toBe(200);
    expect((await viaConfig(configs.b.slug)).status).toBe(200);
    await gateway.flushLogs();
    all = await logs("");
    expect(all).toHaveLength(11);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.stop();
    await logStore?.cleanup();
  });

  it("records which stored config, and which version of it, served a request", () => {
    const served = all.filter((log) => log.config_id !== null).map((log) => [log.config_id, log.config_version]);
    expect(served).toEqual([
      [configs.b.id, 1],
      [configs.a.id, 2],
      [configs.a.id, 1],
    ]);
  });

  it("filters by config, named by slug or by id", async () => {
    expect(ids(await logs(`&config=${configs.a.slug}`))).toEqual(ids(all.filter((log) => log.config_id === configs.a.id)));
    expect(ids(await logs(`&config=${configs.a.id}`))).toHaveLength(2);
    expect(ids(await logs(`&config=${configs.b.slug}`))).toEqual(ids(all.filter((log) => log.config_id === configs.b.id)));
    expect(await logs("&config=pc-unknown-00000000")).toEqual([]);
  });

  it("keeps exactly the records each new filter describes", async () => {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const tokens = median(all.map((log) => log.usage.total_tokens).filter((n) => n > 0));
    const costs = all.map((log) => log.cost_usd).filter((n): n is number => n !== null && n > 0);
    const cost = median(costs);
    const latency = median(all.map((log) => log.latency_ms));
    const ttft = all.find((log) => log.time_to_first_token_ms !== null)!.time_to_first_token_ms!;
    const cases: Array<[string, (log: Summary) => boolean]> = [
      ["status_class=2xx", (log) => log.status >= 200 && log.status < 300],
      ["status_class=4xx", (log) => log.status >= 400 && log.status < 500],
      ["status_class=5xx", (log) => log.status >= 500],
      [`min_total_tokens=${tokens}`, (log) => log.usage.total_tokens >= tokens],
      [`max_total_tokens=${tokens}`, (log) => log.usage.total_tokens <= tokens],
      [`min_cost_usd=${cost}`, (log) => log.cost_usd !== null && log.cost_usd >= cost],
      [`max_cost_usd=${cost}`, (log) => log.cost_usd !== null && log.cost_usd <= cost],
      [`min_latency_ms=${latency}`, (log) => log.latency_ms >= latency],
      [`max_latency_ms=${latency}`, (log) => log.latency_ms <= latency],
      [`min_time_to_first_token_ms=${ttft}`, (log) => log.time_to_first_token_ms !== null && log.time_to_first_token_ms >= ttft],
      [`max_time_to_first_token_ms=${ttft}`, (log) => log.time_to_first_token_ms !== null && log.time_to_first_token_ms <= ttft],
      [`min_total_tokens=1&status_class=2xx&config=${configs.a.slug}`, (log) => log.usage.total_tokens >= 1 && log.status < 300 && log.config_id === configs.a.id],
    ];
    for (const [query, keep] of cases) {
      const expected = ids(all.filter(keep));
      expect(expected.length, query).toBeGreaterThan(0);
      // Each case narrows something, except the class every success shares.
      if (!query.startsWith("status_class=2xx")) expect(expected.length, query).toBeLessThan(all.length);
      expect(ids(await logs(`&${query}`)), query).toEqual(expected);
    }
  });

  it("refuses malformed filters with the 400 envelope naming the parameter", async () => {
    for (const [query, param] of [
      ["status_class=3xx", "status_class"],
      ["min_cost_usd=-1", "min_cost_usd"],
      ["max_total_tokens=1.5", "max_total_tokens"],
      ["min_latency_ms=fast", "min_latency_ms"],
      ["from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
    ]) {
      for (const path of ["/v1/logs", "/v1/logs/export"]) {
        const response = await call(gateway, "GET", `${path}?${query}`);
        expect(response.status, `${path}?${query}`).toBe(400);
        expect(response.body.error).toMatchObject({ type: "invalid_request_error", param });
      }
    }
    const format = await call(gateway, "GET", "/v1/logs/export?format=xml");
    expect(format.body.error.param).toBe("format");
  });

  it("takes up to 16 metadata filters at once and refuses more, on every route that filters", async () => {
    const filters = (count: number) => Array.from({ length: count }, (_, i) => `metadata[k${i}]=v${i}`).join("&");
    for (const path of ["/v1/logs", "/v1/logs/export", "/v1/analytics/summary"]) {
      const most = await call(gateway, "GET", `${path}?${filters(16)}`);
      expect(most.status, path).toBe(200);
      const tooMany = await call(gateway, "GET", `${path}?${filters(17)}`);
      expect(tooMany.status, path).toBe(400);
      expect(tooMany.body.error).toMatchObject({ type: "invalid_request_error", param: "metadata" });
    }
    expect((await call(gateway, "GET", "/v1/logs?limit=1")).status).toBe(200);
    const twice = await call(gateway, "GET", "/v1/logs?metadata[k]=a&metadata[k]=b");
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({ type: "invalid_request_error", param: "metadata" });
  });

  it("exports JSONL: the listing's summaries, newest first, filtered the same way", async () => {
    const { response, text } = await exported("");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="logs-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.jsonl"$/);
    expect(text.endsWith("\n")).toBe(true);
    expect(text.trimEnd().split("\n").map((line) => JSON.parse(line))).toEqual(all);

    const filtered = await exported(`?status_class=2xx&metadata[none]=x`);
    expect(filtered.text).toBe("");
    const byConfig = await exported(`?format=jsonl&config=${configs.a.slug}&limit=1`);
    expect(byConfig.text.trimEnd().split("\n").map((line) => JSON.parse(line))).toEqual((await logs(`&config=${configs.a.slug}`)).slice(0, 1));
  });

  it("exports JSONL with bodies as the whole records", async () => {
    const { text } = await exported("?include_bodies=true&limit=3");
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toEqual((await call(gateway, "GET", `/v1/logs/${line.id}`)).body);
    expect(lines.some((line) => line.response.body !== null)).toBe(true);
  });

  it("exports CSV that reads back to the listing's records, a formula cell neutralised", async () => {
    const { response, text } = await exported("?format=csv");
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/filename="logs-.*\.csv"$/);
    const rows = csvObjects(text);
    expect(rows.map((row) => row.id)).toEqual(ids(all));
    const cell = (value: unknown) => (value === null ? "" : String(value));
    rows.forEach((row, i) => {
      const log = all[i]!;
      expect(row).toMatchObject({
        created_at: log.created_at,
        status: cell(log.status),
        provider: cell(log.provider),
        model: cell(log.model),
        user: log.user === FORMULA_USER ? `'${FORMULA_USER}` : cell(log.user),
        config_id: cell(log.config_id),
        config_version: cell(log.config_version),
        trace_id: log.trace_id,
        total_tokens: cell(log.usage.total_tokens),
        cost_usd: cell(log.cost_usd),
        latency_ms: cell(log.latency_ms),
        time_to_first_token_ms: cell(log.time_to_first_token_ms),
        metadata: JSON.stringify(log.metadata),
        error_code: cell((log.error as { code: string } | null)?.code ?? null),
      });
    });
    expect(rows.some((row) => row.user === `'${FORMULA_USER}`)).toBe(true);
  });

  it("declares exactly the listing's filters on the export", () => {
    const names = (path: "/v1/logs" | "/v1/logs/export") => openApiDocument.paths[path].get.parameters.map((parameter) => parameter.name);
    const paging = new Set(["cursor", "limit", "format", "include_bodies"]);
    expect(names("/v1/logs/export").filter((name) => !paging.has(name))).toEqual(names("/v1/logs").filter((name) => !paging.has(name)));
  });

  it("exports only the caller's workspace, to any of its keys", async () => {
    const other = await call(gateway, "POST", "/v1/api-keys", { body: { name: "elsewhere", role: "service", workspace_id: "5d1f0c47-2b0e-4f7a-9e43-2a8b8f3c1d20" } });
    expect((await exported("", other.body.key)).text).toBe("");
    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "reader", role: "service" } });
    expect((await exported("", service.body.key)).text.trimEnd().split("\n")).toHaveLength(all.length);
    expect((await exported("", "not-a-key")).response.status).toBe(401);
  });
});
