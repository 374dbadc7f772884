import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, freePort, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";

let upstream: LLMock;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("metered", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await upstream?.stop();
});

async function gatewayWith(overrides: Parameters<typeof startGateway>[0] = {}): Promise<RunningGateway> {
  const gateway = await startGateway(overrides);
  gateways.push(gateway);
  return gateway;
}

const CHAT = { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user", content: "metered" }] };
const COST = (20 * 2.5 + 50 * 10) / 1e6;

async function virtualKey(gateway: RunningGateway, extra: Record<string, unknown>): Promise<string> {
  const created = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "metered", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1`, ...extra } });
  expect(created.status).toBe(201);
  return created.body.slug as string;
}

describe("budgets and rate limits in one process (no Redis)", () => {
  it("a budget answers 412 once spent, warns past its alert threshold, and shows its spend", async () => {
    const gateway = await gatewayWith();
    const slug = await virtualKey(gateway, { budget: { credit_limit_usd: 2.5 * COST, period: "daily", alert_threshold: 0.5 } });
    const send = () => call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers: { "x-gateway-virtual-key": slug } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get("x-gateway-budget-alert")).toBeNull();
    await gateway.flushLogs();
    const second = await send();
    expect(second.status).toBe(200);
    // Settled spend (one call, 40% of the limit) is under the threshold; after two it is 80%.
    const third = await send();
    expect(third.status).toBe(200);
    expect(third.headers.get("x-gateway-budget-alert")).toMatch(new RegExp(`virtual key ${slug} at 80% of \\$`));
    const refused = await send();
    expect(refused.status).toBe(412);
    expect(refused.body.error).toMatchObject({ code: "budget_exhausted", type: "budget_error", param: null });
    expect(refused.body.error.message).toMatch(new RegExp(`budget of virtual key "${slug}" is exhausted.*limit\\. It resets at \\d{4}-\\d\\d-\\d\\dT00:00:00\\.000Z`));
    const read = await call(gateway, "GET", `/v1/virtual-keys/${slug}`);
    expect(read.body.spent_usd).toBeCloseTo(3 * COST, 12);
    expect(read.body.remaining_usd).toBe(0);
    expect(Date.parse(read.body.period_resets_at) - Date.now()).toBeLessThanOrEqual(86_400_000);
  });

  it("tokens per minute are counted when a call settles and refuse the next request once spent", async () => {
    const gateway = await gatewayWith();
    const slug = await virtualKey(gateway, { rate_limit: { tokens_per_minute: 100, requests_per_hour: 50 } });
    const send = () => call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers: { "x-gateway-virtual-key": slug } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("100");
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("100");
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("49");
    const second = await send();
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe("30");
    const third = await send();
    expect(third.status).toBe(429);
    expect(third.body.error.message).toContain("100 tokens per minute");
    expect(third.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
    expect(Number(third.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });

  it("a gateway key's own rate limit applies to every request it makes", async () => {
    const gateway = await gatewayWith();
    const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "limited", role: "service", rate_limit: { requests_per_day: 1 } } });
    expect(created.status).toBe(201);
    expect(created.body.rate_limit).toEqual({ requests_per_day: 1 });
    const headers = { "x-gateway-api-key": created.body.key as string, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` };
    expect((await call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers })).status).toBe(200);
    const refused = await call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain(`gateway key ${created.body.id}`);
  });
});

describe("Redis that is down (a closed port)", () => {
  it("closed policy: a metered request answers 503, an unmetered one is served", async () => {
    const gateway = await gatewayWith({ GATEWAY_REDIS_URL: `redis://127.0.0.1:${await freePort()}`, GATEWAY_REDIS_FAILURE_POLICY: "closed" });
    const slug = await virtualKey(gateway, { rate_limit: { requests_per_minute: 100 } });
    const metered = await call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers: { "x-gateway-virtual-key": slug } });
    expect(metered.status).toBe(503);
    expect(metered.body.error).toMatchObject({ code: "service_unavailable" });
    expect(metered.body.error.message).toContain("GATEWAY_REDIS_FAILURE_POLICY=closed");
    const plain = await virtualKey(gateway, {});
    expect((await call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers: { "x-gateway-virtual-key": plain } })).status).toBe(200);
  });

  it("open policy: limits hold in process", async () => {
    const gateway = await gatewayWith({ GATEWAY_REDIS_URL: `redis://127.0.0.1:${await freePort()}`, GATEWAY_REDIS_FAILURE_POLICY: "open" });
    const slug = await virtualKey(gateway, { rate_limit: { requests_per_day: 1 } });
    const send = () => call(gateway, "POST", "/v1/chat/completions", { body: CHAT, headers: { "x-gateway-virtual-key": slug } });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(429);
  });
});
