import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { freePort, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { testRedisUrl } from "./support/services.ts";

/**
 * Routing through configs, against two aimock upstreams and their fault injection, through the
 * official client: fallback, retries with backoff and Retry-After, per-target timeouts, load
 * balancing, conditional routing, circuit breaking, and no fallback once a stream has begun.
 */

let gateway: RunningGateway;
let primary: LLMock;
let backup: LLMock;

const question = (text: string) => [{ role: "user" as const, content: text }];

beforeAll(async () => {
  [primary, backup] = await Promise.all([startUpstream(), startUpstream()]);
  for (const [mock, name] of [[primary, "primary"], [backup, "backup"]] as const) {
    mock.onMessage("hello", { content: `Hello from ${name}` });
    mock.onMessage("cut stream", { content: "alpha beta gamma delta epsilon zeta eta theta" }, { latency: 30, chunkSize: 5, disconnectAfterMs: 100 });
  }
  primary.onMessage("rate limited", { content: "never" }, { chaos: { rateLimitRate: 1 } });
  backup.onMessage("rate limited", { content: "Hello from backup" });
  primary.onMessage("slow", { content: "too late" }, { chaos: { latencyMs: 1500 } });
  backup.onMessage("slow", { content: "Hello from backup" });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([primary?.stop(), backup?.stop()]);
});

const target = (mock: LLMock, extra: Record<string, unknown> = {}) => ({ provider: "openai", api_key: UPSTREAM_KEY, custom_host: `${mock.url}/v1`, ...extra });

function client(config: object, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-config": JSON.stringify(config), ...headers },
  });
}

async function ask(config: object, text = "hello", headers: Record<string, string> = {}) {
  const { data, response } = await client(config, headers).chat.completions.create({ model: "gpt-4o-mini", messages: question(text) }).withResponse();
  const log = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
  return { content: data.choices[0]!.message.content, headers: response.headers, log };
}

const chatCalls = (mock: LLMock) => mock.getRequests().filter((entry) => entry.path.endsWith("/chat/completions")).length;

describe("fallback", () => {
  it("moves to the next target on a 5xx, and says which target answered", async () => {
    primary.nextRequestError(500, { message: "primary down" });
    const { content, headers, log } = await ask({ strategy: { mode: "fallback" }, targets: [target(primary), target(backup)] });
    expect(content).toBe("Hello from backup");
    expect(headers.get("x-gateway-last-used-option-index")).toBe("1");
    expect(headers.get("x-gateway-retry-attempt-count")).toBe("0");
    expect(log).toMatchObject({ status: 200, provider: "openai" });
    expect(log.attempts.map(({ path, retry, status }) => ({ path, retry, status }))).toEqual([
      { path: "0", retry: 0, status: 500 },
      { path: "1", retry: 0, status: 200 },
    ]);
  });

  it("moves on when a target cannot be reached, but not on a status outside on_status_codes", async () => {
    const dead = { provider: "openai", api_key: UPSTREAM_KEY, custom_host: `http://127.0.0.1:${await freePort()}/v1` };
    const moved = await ask({ strategy: { mode: "fallback" }, targets: [dead, target(backup)] });
    expect(moved.content).toBe("Hello from backup");
    expect(moved.log.attempts[0]).toMatchObject({ path: "0", status: null, errorCode: "upstream_unreachable" });

    primary.nextRequestError(400, { message: "bad request upstream" });
    const kept = await client({ strategy: { mode: "fallback", on_status_codes: [500] }, targets: [target(primary), target(backup)] })
      .chat.completions.create({ model: "gpt-4o-mini", messages: question("hello") })
      .catch((error: unknown) => error);
    expect(kept).toBeInstanceOf(OpenAI.APIError);
    expect((kept as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it("moves on when a target's own request_timeout passes", async () => {
    const started = Date.now();
    const { content, log } = await ask({ strategy: { mode: "fallback" }, targets: [target(primary, { request_timeout: 200 }), target(backup)] }, "slow");
    expect(content).toBe("Hello from backup");
    expect(Date.now() - started).toBeLessThan(1400);
    expect(log.attempts[0]).toMatchObject({ path: "0", errorCode: "request_timeout" });
  });

  it("never falls back once a stream has begun: the client gets the explicit error event, the log one attempt", async () => {
    const before = chatCalls(backup);
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "x-gateway-api-key": gateway.adminKey,
        "x-gateway-config": JSON.stringify({ strategy: { mode: "fallback" }, targets: [target(primary), target(backup)] }),
        "content-type": "application/json",
      },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: question("cut stream") }),
    });
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).not.toContain("data: [DONE]");
    expect(chatCalls(backup)).toBe(before);
    const log = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(log.success).toBe(false);
    expect(log.attempts).toHaveLength(1);
  });
});

describe("retries", () => {
  it("retries a 503 on the same target and counts the retry", async () => {
    primary.nextRequestError(503, { message: "busy" });
    const { content, headers, log } = await ask({ retry: { attempts: 2 }, ...target(primary) });
    expect(content).toBe("Hello from primary");
    expect(headers.get("x-gateway-retry-attempt-count")).toBe("1");
    expect(log.attempts.map(({ retry, status }) => ({ retry, status }))).toEqual([
      { retry: 0, status: 503 },
      { retry: 1, status: 200 },
    ]);
  });

  it("waits out a 429's Retry-After before retrying, then falls back when the retries are spent", async () => {
    const started = Date.now();
    const { content, headers, log } = await ask({ strategy: { mode: "fallback" }, targets: [target(primary, { retry: { attempts: 1 } }), target(backup)] }, "rate limited");
    expect(content).toBe("Hello from backup");
    // aimock asks for Retry-After: 1.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(headers.get("x-gateway-last-used-option-index")).toBe("1");
    expect(log.attempts.map(({ path, retry, status }) => ({ path, retry, status }))).toEqual([
      { path: "0", retry: 0, status: 429 },
      { path: "0", retry: 1, status: 429 },
      { path: "1", retry: 0, status: 200 },
    ]);
  });
});

describe("load balancing and conditions", () => {
  it("spreads requests by weight and never picks a target weighted 0", async () => {
    const served = { "Hello from primary": 0, "Hello from backup": 0 } as Record<string, number>;
    const config = { strategy: { mode: "loadbalance" }, targets: [target(primary, { weight: 1 }), target(backup, { weight: 1 }), target(primary, { weight: 0, custom_host: "http://127.0.0.1:9/v1" })] };
    for (let i = 0; i < 40; i += 1) served[(await ask(config)).content!]! += 1;
    expect(served["Hello from primary"]).toBeGreaterThan(5);
    expect(served["Hello from backup"]).toBeGreaterThan(5);
    expect(served["Hello from primary"]! + served["Hello from backup"]!).toBe(40);
  });

  it("routes by metadata and body fields, else to the default", async () => {
    const config = {
      strategy: {
        mode: "conditional",
        conditions: [{ query: { "metadata.plan": "paid", "params.model": { $regex: "^gpt-4o" } }, then: "fast" }],
        default: "cheap",
      },
      targets: [target(primary, { name: "cheap" }), target(backup, { name: "fast" })],
    };
    expect((await ask(config, "hello", { "x-gateway-metadata": JSON.stringify({ plan: "paid" }) })).content).toBe("Hello from backup");
    expect((await ask(config, "hello", { "x-gateway-metadata": JSON.stringify({ plan: "free" }) })).content).toBe("Hello from primary");
  });

  it("compares a query's objects in time bounded by the query, not by the body field", async () => {
    // Each `[]` in an $in list used to stringify the whole field it was compared with: 4,000 of
    // them against a large `messages` array held the event loop for seconds per request.
    const empties = Array.from({ length: 100 }, () => []);
    const config = {
      strategy: { mode: "conditional", conditions: [{ query: { $or: Array.from({ length: 40 }, () => ({ "params.messages": { $in: empties } })) }, then: "fast" }], default: "cheap" },
      targets: [target(primary, { name: "cheap" }), target(backup, { name: "fast" })],
    };
    const messages = [...Array.from({ length: 3_000 }, () => ({ role: "user" as const, content: "x".repeat(1_000) })), ...question("hello")];
    const started = performance.now();
    const { data } = await client(config).chat.completions.create({ model: "gpt-4o-mini", messages }).withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello from primary");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("refuses a config whose routing cannot work with 400 naming the field", async () => {
    const refused = await client({ strategy: { mode: "conditional", conditions: [{ query: { "metadata.plan": { $regex: "(a)\\1" } }, then: "x" }] }, targets: [target(primary, { name: "x" })] })
      .chat.completions.create({ model: "gpt-4o-mini", messages: question("hello") })
      .then(() => null, (error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(refused?.status).toBe(400);
    expect(refused?.error).toMatchObject({ param: "x-gateway-config.strategy.conditions.0.query.metadata.plan.$regex" });
  });
});

describe("circuit breaking", () => {
  it("skips a target that keeps failing for its cool-down, and logs the skip", async () => {
    const dead = { provider: "openai", api_key: UPSTREAM_KEY, custom_host: `http://127.0.0.1:${await freePort()}/v1` };
    const config = { strategy: { mode: "fallback" }, cb_config: { failure_threshold: 2, cooldown_ms: 60_000 }, targets: [dead, target(backup)] };
    for (let i = 0; i < 2; i += 1) expect((await ask(config)).log.attempts[0]).toMatchObject({ errorCode: "upstream_unreachable" });
    const skipped = await ask(config);
    expect(skipped.content).toBe("Hello from backup");
    expect(skipped.log.attempts[0]).toMatchObject({ path: "0", status: null, errorCode: "service_unavailable", errorMessage: expect.stringContaining("circuit is open") });
    expect(skipped.log.attempts[0]!.latencyMs).toBeLessThan(50);
  });

  it("shares open circuits across replicas through Redis", async () => {
    const replicas = await Promise.all([startGateway({ GATEWAY_REDIS_URL: testRedisUrl() }), startGateway({ GATEWAY_REDIS_URL: testRedisUrl() })]);
    try {
      const dead = { provider: "openai", api_key: `${UPSTREAM_KEY}-${Date.now()}`, custom_host: `http://127.0.0.1:${await freePort()}/v1` };
      const config = JSON.stringify({ strategy: { mode: "fallback" }, cb_config: { failure_threshold: 2, cooldown_ms: 60_000 }, targets: [dead, target(backup)] });
      const send = async (replica: RunningGateway) => {
        const response = await fetch(`${replica.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "x-gateway-api-key": replica.adminKey, "x-gateway-config": config, "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-4o-mini", messages: question("hello") }),
        });
        expect(response.status).toBe(200);
        return storedLog(replica, response.headers.get("x-gateway-log-id")!);
      };
      await send(replicas[0]);
      await send(replicas[0]);
      const other = await send(replicas[1]);
      expect(other.attempts[0]).toMatchObject({ errorCode: "service_unavailable" });
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });
});
