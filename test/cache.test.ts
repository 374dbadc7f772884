import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { randomUUID } from "node:crypto";
import { call, openaiClient, startGateway, startUpstream, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";
import { testRedisUrl } from "./support/services.ts";

let gateway: RunningGateway;
let upstream: LLMock;

const CACHE_CONFIG = JSON.stringify({ cache: { mode: "simple", max_age: 600 } });

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("cache me", { content: "A cached answer.", usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
  upstream.onMessage("stream me", { content: "One two three four five" });
  upstream.onMessage("fails once", { content: "Recovered." });
  upstream.onEmbedding("embed me", { embedding: [0.5, 0.25, 0.125] });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

/** A namespace of the test's own, so tests sharing the gateway never share entries. */
const fresh = (): Record<string, string> => ({ "x-gateway-config": CACHE_CONFIG, "x-gateway-cache-namespace": randomUUID() });
const upstreamCalls = (): number => upstream.getRequests().length;
const chatBody = (content: string) => ({ model: "gpt-4o-mini", messages: [{ role: "user" as const, content }] });

describe("the exact-match cache", () => {
  it("serves the second identical chat from the cache without calling the upstream, logged as a hit with the cost saved", async () => {
    const client = openaiClient(gateway, upstream, fresh());
    const first = await client.chat.completions.create(chatBody("cache me")).withResponse();
    expect(first.response.headers.get("x-gateway-cache-status")).toBe("MISS");
    const before = upstreamCalls();
    const second = await client.chat.completions.create(chatBody("cache me")).withResponse();
    expect(second.response.headers.get("x-gateway-cache-status")).toBe("HIT");
    expect(upstreamCalls()).toBe(before);
    expect(second.data).toEqual(first.data);
    expect(second.response.headers.get("x-gateway-provider")).toBe("openai");

    const miss = await storedLog(gateway, first.response.headers.get("x-gateway-log-id")!);
    const hit = await storedLog(gateway, second.response.headers.get("x-gateway-log-id")!);
    expect(miss).toMatchObject({ cacheStatus: "MISS", costSavedUsd: null, promptTokens: 12, completionTokens: 4 });
    expect(miss.costUsd).toBeGreaterThan(0);
    expect(hit).toMatchObject({ cacheStatus: "HIT", costUsd: 0, costSavedUsd: miss.costUsd, promptTokens: 12, completionTokens: 4, totalTokens: 16, status: 200, success: true, attempts: [] });
    expect(JSON.parse(hit.responseBody!)).toEqual(first.data);

    const view = await call(gateway, "GET", `/v1/logs/${hit.id}`);
    expect(view.body).toMatchObject({ cache_status: "HIT", cost_usd: 0, cost_saved_usd: miss.costUsd });
  });

  it("keys on the body's meaning, not its key order or spacing", async () => {
    const headers = { ...upstreamHeaders(gateway, upstream), ...fresh(), authorization: "Bearer sk-one" };
    const first = await call(gateway, "POST", "/v1/chat/completions", { headers, rawBody: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"cache me"}]}' });
    expect(first.headers.get("x-gateway-cache-status")).toBe("MISS");
    const reordered = await call(gateway, "POST", "/v1/chat/completions", { headers, rawBody: '{ "messages": [ { "content": "cache me", "role": "user" } ], "model": "gpt-4o-mini" }' });
    expect(reordered.headers.get("x-gateway-cache-status")).toBe("HIT");
    expect(reordered.body).toEqual(first.body);
  });

  it("never shares an answer across upstream keys, namespaces, bodies or workspaces' configs", async () => {
    const namespace = fresh();
    const base = { ...upstreamHeaders(gateway, upstream), ...namespace };
    const body = chatBody("cache me");
    expect((await call(gateway, "POST", "/v1/chat/completions", { headers: { ...base, authorization: "Bearer sk-one" }, body })).headers.get("x-gateway-cache-status")).toBe("MISS");
    expect((await call(gateway, "POST", "/v1/chat/completions", { headers: { ...base, authorization: "Bearer sk-one" }, body })).headers.get("x-gateway-cache-status")).toBe("HIT");
    // Another upstream key: another account, which may not read the first one's answers.
    expect((await call(gateway, "POST", "/v1/chat/completions", { headers: { ...base, authorization: "Bearer sk-two" }, body })).headers.get("x-gateway-cache-status")).toBe("MISS");
    // Another namespace, another organisation header, another field value (user): each a miss.
    const other = { ...base, authorization: "Bearer sk-one", "x-gateway-cache-namespace": randomUUID() };
    expect((await call(gateway, "POST", "/v1/chat/completions", { headers: other, body })).headers.get("x-gateway-cache-status")).toBe("MISS");
    const org = { ...base, authorization: "Bearer sk-one", "x-gateway-upstream-organization": "org-b" };
    expect((await call(gateway, "POST", "/v1/chat/completions", { headers: org, body })).headers.get("x-gateway-cache-status")).toBe("MISS");
    const withUser = await call(gateway, "POST", "/v1/chat/completions", { headers: { ...base, authorization: "Bearer sk-one" }, body: { ...body, user: "u-1" } });
    expect(withUser.headers.get("x-gateway-cache-status")).toBe("MISS");
  });

  it("replays a cached stream event by event, without calling the upstream", async () => {
    const client = openaiClient(gateway, upstream, fresh());
    const read = async () => {
      const { data: stream, response } = await client.chat.completions.create({ ...chatBody("stream me"), stream: true }).withResponse();
      const chunks: string[] = [];
      for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta.content ?? "");
      return { chunks, status: response.headers.get("x-gateway-cache-status"), logId: response.headers.get("x-gateway-log-id")!, type: response.headers.get("content-type") };
    };
    const first = await read();
    expect(first.status).toBe("MISS");
    expect(first.chunks.join("")).toBe("One two three four five");
    await gateway.flushLogs();
    const before = upstreamCalls();
    const second = await read();
    expect(second).toMatchObject({ status: "HIT", chunks: first.chunks });
    expect(second.type).toContain("text/event-stream");
    expect(second.chunks.length).toBeGreaterThan(2);
    expect(upstreamCalls()).toBe(before);
    const hit = await storedLog(gateway, second.logId);
    expect(hit).toMatchObject({ cacheStatus: "HIT", stream: true, costUsd: 0 });
    expect(JSON.parse(hit.responseBody!).choices[0].message.content).toBe("One two three four five");
  });

  it("refreshes on x-gateway-cache-force-refresh: the upstream answers and its answer is what the next hit serves", async () => {
    const headers = fresh();
    const client = openaiClient(gateway, upstream, headers);
    await client.chat.completions.create(chatBody("cache me"));
    const before = upstreamCalls();
    const refreshed = await openaiClient(gateway, upstream, { ...headers, "x-gateway-cache-force-refresh": "true" }).chat.completions.create(chatBody("cache me")).withResponse();
    expect(refreshed.response.headers.get("x-gateway-cache-status")).toBe("REFRESH");
    expect(upstreamCalls()).toBe(before + 1);
    const next = await client.chat.completions.create(chatBody("cache me")).withResponse();
    expect(next.response.headers.get("x-gateway-cache-status")).toBe("HIT");
    expect(next.data.id).toBe(refreshed.data.id);
  });

  it("caches only 2xx answers: an upstream error is passed on and the next request calls the upstream again", async () => {
    const client = openaiClient(gateway, upstream, fresh());
    upstream.nextRequestError(500, { message: "upstream broke", type: "server_error" });
    const failed = await client.chat.completions.create(chatBody("fails once")).withResponse().catch((error: { status: number; headers: Headers }) => error);
    expect(failed).toMatchObject({ status: 500 });
    expect((failed as { headers: Headers }).headers.get("x-gateway-cache-status")).toBe("MISS");
    const before = upstreamCalls();
    const retried = await client.chat.completions.create(chatBody("fails once")).withResponse();
    expect(retried.response.headers.get("x-gateway-cache-status")).toBe("MISS");
    expect(retried.data.choices[0]?.message.content).toBe("Recovered.");
    expect(upstreamCalls()).toBe(before + 1);
  });

  it("says DISABLED without a cache config, and never caches then", async () => {
    const client = openaiClient(gateway, upstream);
    const first = await client.chat.completions.create(chatBody("cache me")).withResponse();
    expect(first.response.headers.get("x-gateway-cache-status")).toBe("DISABLED");
    const before = upstreamCalls();
    const second = await client.chat.completions.create(chatBody("cache me")).withResponse();
    expect(second.response.headers.get("x-gateway-cache-status")).toBe("DISABLED");
    expect(upstreamCalls()).toBe(before + 1);
    expect(await storedLog(gateway, second.response.headers.get("x-gateway-log-id")!)).toMatchObject({ cacheStatus: "DISABLED", costSavedUsd: null });
  });

  it("caches embeddings", async () => {
    const client = openaiClient(gateway, upstream, fresh());
    const first = await client.embeddings.create({ model: "text-embedding-3-small", input: "embed me" }).withResponse();
    const before = upstreamCalls();
    const second = await client.embeddings.create({ model: "text-embedding-3-small", input: "embed me" }).withResponse();
    expect([first.response.headers.get("x-gateway-cache-status"), second.response.headers.get("x-gateway-cache-status")]).toEqual(["MISS", "HIT"]);
    expect(second.data.data[0]?.embedding).toEqual(first.data.data[0]?.embedding);
    expect(upstreamCalls()).toBe(before);
  });

  it("caches a Responses call only with store: false (a stored response is a side effect upstream)", async () => {
    const client = openaiClient(gateway, upstream, fresh());
    const stored = await client.responses.create({ model: "gpt-4o-mini", input: "cache me" }).withResponse();
    expect(stored.response.headers.get("x-gateway-cache-status")).toBe("DISABLED");
    const first = await client.responses.create({ model: "gpt-4o-mini", input: "cache me", store: false }).withResponse();
    const before = upstreamCalls();
    const second = await client.responses.create({ model: "gpt-4o-mini", input: "cache me", store: false }).withResponse();
    expect([first.response.headers.get("x-gateway-cache-status"), second.response.headers.get("x-gateway-cache-status")]).toEqual(["MISS", "HIT"]);
    expect(second.data.output_text).toBe(first.data.output_text);
    expect(upstreamCalls()).toBe(before);
  });

  it("refuses a max_age past 90 days with the field named", async () => {
    const client = openaiClient(gateway, upstream, { "x-gateway-config": JSON.stringify({ cache: { mode: "simple", max_age: 7_776_001 } }) });
    await expect(client.chat.completions.create(chatBody("cache me"))).rejects.toMatchObject({ status: 400, error: { param: "x-gateway-config.cache.max_age" } });
  });
});

describe("the cache in Redis", () => {
  it("is shared by replicas: one stores, another serves the hit", async () => {
    const replicas = [await startGateway({ GATEWAY_REDIS_URL: testRedisUrl() }), await startGateway({ GATEWAY_REDIS_URL: testRedisUrl() })];
    try {
      for (const replica of replicas) {
        for (let i = 0; i < 100 && !replica.gateway.deps.redis?.available; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const headers = fresh();
      const first = await openaiClient(replicas[0]!, upstream, headers).chat.completions.create(chatBody("cache me")).withResponse();
      expect(first.response.headers.get("x-gateway-cache-status")).toBe("MISS");
      const before = upstreamCalls();
      // The answer is stored once complete, off the response's way: allow the write a moment.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await openaiClient(replicas[1]!, upstream, headers).chat.completions.create(chatBody("cache me")).withResponse();
      expect(second.response.headers.get("x-gateway-cache-status")).toBe("HIT");
      expect(second.data).toEqual(first.data);
      expect(upstreamCalls()).toBe(before);
    } finally {
      for (const replica of replicas) await replica.close();
    }
  });
});
