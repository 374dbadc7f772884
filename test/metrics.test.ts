import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, freePort, openaiClient, startGateway, startUpstream, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

const TOKEN = "metrics-token-0123456789abcdef";
let upstream: LLMock;
const started: RunningGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("count me", { content: "Counted.", usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
});

afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
  await upstream?.stop();
});

async function gatewayWith(overrides: Parameters<typeof startGateway>[0]): Promise<RunningGateway> {
  const gateway = await startGateway(overrides);
  started.push(gateway);
  return gateway;
}

async function scrape(gateway: RunningGateway, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}/metrics`, { headers });
}

/** The value of one sample line (`name{labels} value`), or undefined when the line is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  it("is off by default: 404 in the error envelope", async () => {
    const gateway = await gatewayWith({});
    const response = await scrape(gateway);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: "not_found", type: "not_found_error" } });
  });

  it("with a token, answers only a request bearing it", async () => {
    const gateway = await gatewayWith({ GATEWAY_METRICS_TOKEN: TOKEN });
    const missing = await scrape(gateway);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "missing_api_key", type: "authentication_error" } });
    const wrong = await scrape(gateway, { authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    // A gateway key is not a metrics token.
    expect((await scrape(gateway, { authorization: `Bearer ${gateway.adminKey}` })).status).toBe(401);
    const right = await scrape(gateway, { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect(right.headers.get("content-type")).toContain("text/plain");
    expect(await right.text()).toContain("# TYPE gateway_requests_total counter");
  });

  it("counts requests, tokens, cost, latency, upstream errors and the log queue after real requests", async () => {
    const gateway = await gatewayWith({ GATEWAY_METRICS: "public" });
    const before = await (await scrape(gateway)).text();
    expect(before).toContain("# TYPE gateway_cache_hits_total counter");
    expect(sample(before, "gateway_log_queue_depth")).toBe(0);

    const client = openaiClient(gateway, upstream);
    const logIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { response } = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "count me" }] }).withResponse();
      logIds.push(response.headers.get("x-gateway-log-id")!);
    }
    const port = await freePort();
    const failed = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "count me" }] },
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-custom-host": `http://127.0.0.1:${port}/v1` },
    });
    expect(failed.status).toBe(502);
    const record = await storedLog(gateway, logIds[0]!);

    const text = await (await scrape(gateway)).text();
    const labels = 'route="createChatCompletion",provider="openai",model="gpt-4o-mini"';
    expect(sample(text, `gateway_requests_total{${labels},status_class="2xx"}`)).toBe(2);
    expect(sample(text, `gateway_requests_total{${labels},status_class="5xx"}`)).toBe(1);
    expect(sample(text, 'gateway_tokens_total{provider="openai",model="gpt-4o-mini",type="input"}')).toBe(24);
    expect(sample(text, 'gateway_tokens_total{provider="openai",model="gpt-4o-mini",type="output"}')).toBe(8);
    expect(sample(text, 'gateway_cost_usd_total{provider="openai",model="gpt-4o-mini"}')).toBeCloseTo(2 * record.costUsd!, 12);
    expect(sample(text, 'gateway_request_duration_seconds_count{route="createChatCompletion",provider="openai"}')).toBe(3);
    expect(sample(text, 'gateway_upstream_errors_total{provider="openai",status="upstream_unreachable"}')).toBe(1);
    expect(sample(text, 'gateway_log_writes_dropped_total{reason="queue_full"}')).toBe(0);
    expect(sample(text, "gateway_log_writes_retried_total")).toBe(0);
  });

  it("counts answer-cache misses and hits", async () => {
    const gateway = await gatewayWith({ GATEWAY_METRICS: "public" });
    const client = openaiClient(gateway, upstream, { "x-gateway-config": JSON.stringify({ cache: { mode: "simple", max_age: 60 } }) });
    const logIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { response } = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "count me" }] }).withResponse();
      logIds.push(response.headers.get("x-gateway-log-id")!);
    }
    await storedLog(gateway, logIds[2]!);
    const text = await (await scrape(gateway)).text();
    expect(sample(text, 'gateway_cache_misses_total{route="createChatCompletion"}')).toBe(1);
    expect(sample(text, 'gateway_cache_hits_total{route="createChatCompletion"}')).toBe(2);
  });
});
