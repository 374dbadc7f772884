import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { randomBytes, randomUUID } from "node:crypto";
import { call, openaiClient, startGateway, startUpstream, storedLog, type RunningGateway } from "./support/harness.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startEmbeddingServer, type EmbeddingServer } from "../scripts/semantic/embedding-server.ts";
import { FEATURE_DIMENSIONS } from "../scripts/semantic/text-features.ts";
import { SemanticIndex } from "../src/cache/semantic-index.ts";

/**
 * The semantic cache end to end: the official OpenAI client against the gateway, aimock as the
 * chat upstream, and a local embeddings upstream whose vectors are a deterministic featurisation
 * of the text (paraphrases score near 1, near-misses low), reached through a virtual key.
 */
let gateway: RunningGateway;
let upstream: LLMock;
let embeddings: EmbeddingServer;
let virtualKey: string;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage(/capital of france/i, { content: "Paris.", usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } });
  upstream.onMessage(/capital of germany/i, { content: "Berlin." });
  upstream.onMessage(/coffee/i, { content: "In moderation, yes." });
  upstream.onMessage(/password/i, { content: "Use the reset link." });
  upstream.onMessage(/cat sat/i, { content: "On the mat." });
  upstream.onMessage(/./, { content: "Some answer." });
  embeddings = await startEmbeddingServer();
  gateway = await startGateway({ GATEWAY_SEMANTIC_CACHE_EMBEDDING_TIMEOUT_MS: 300 });
  virtualKey = await createEmbeddingKey(gateway, gateway.adminKey);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await embeddings?.close();
});

async function createEmbeddingKey(on: RunningGateway, key: string): Promise<string> {
  const created = await call(on, "POST", "/v1/virtual-keys", { key, body: { name: "embeddings", provider: "openai", key: "sk-embed-0123456789", custom_host: embeddings.url } });
  expect(created.status).toBe(201);
  return created.body.slug as string;
}

const semanticConfig = (slug: string, cache: Record<string, unknown> = {}) =>
  JSON.stringify({ cache: { mode: "semantic", max_age: 600, similarity_threshold: 0.9, embedding: { virtual_key: slug, model: "text-embedding-3-small" }, ...cache } });

/** A client on a namespace of its own, so tests never share entries. */
function semanticClient(on: RunningGateway = gateway, options: { namespace?: string; cache?: Record<string, unknown>; key?: string; slug?: string } = {}) {
  const namespace = options.namespace ?? randomUUID();
  const headers: Record<string, string> = { "x-gateway-config": semanticConfig(options.slug ?? virtualKey, options.cache), "x-gateway-cache-namespace": namespace };
  if (options.key) headers["x-gateway-api-key"] = options.key;
  return { client: openaiClient(on, upstream, headers), namespace };
}

const ask = (content: string, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) => ({ model: "gpt-4o-mini", messages: [{ role: "user" as const, content }], ...extra });

async function send(client: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming) {
  const { data, response } = await client.chat.completions.create(body).withResponse();
  return { data, status: response.headers.get("x-gateway-cache-status"), logId: response.headers.get("x-gateway-log-id")! };
}

const chatCalls = (): number => upstream.getRequests().filter((request) => request.path.includes("/chat/completions")).length;

describe("the semantic cache", () => {
  it("serves a paraphrase the cached answer, with one embedding call per request, logged with its similarity, source and saving", async () => {
    const { client } = semanticClient();
    const embedded = embeddings.calls.length;
    const first = await send(client, ask("What is the capital of France?"));
    expect(first.status).toBe("MISS");
    expect(first.data.choices[0]!.message.content).toBe("Paris.");
    const before = chatCalls();
    const second = await send(client, ask("Tell me the capital of France, please"));
    expect(second.status).toBe("SEMANTIC_HIT");
    expect(second.data).toEqual(first.data);
    expect(chatCalls()).toBe(before);
    // One embedding per request: the miss's vector was reused to store its answer.
    expect(embeddings.calls.slice(embedded)).toEqual(["What is the capital of France?", "Tell me the capital of France, please"]);

    const miss = await storedLog(gateway, first.logId);
    const hit = await storedLog(gateway, second.logId);
    expect(miss).toMatchObject({ cacheStatus: "MISS", cacheSimilarity: null, cacheNote: null });
    expect(hit).toMatchObject({ cacheStatus: "SEMANTIC_HIT", cacheSourceLogId: first.logId, costUsd: 0, costSavedUsd: miss.costUsd, attempts: [] });
    expect(hit.cacheSimilarity).toBeGreaterThan(0.99);
    expect(miss.costUsd).toBeGreaterThan(0);
    const view = await call(gateway, "GET", `/v1/logs/${hit.id}`);
    expect(view.body).toMatchObject({ cache_status: "SEMANTIC_HIT", cache_source_log_id: first.logId, cost_usd: 0 });
  });

  it("serves an identical request as an exact HIT without calling the embedding target", async () => {
    const { client } = semanticClient();
    const first = await send(client, ask("What is the capital of France?"));
    const embedded = embeddings.calls.length;
    const again = await send(client, ask("What is the capital of France?"));
    expect(again.status).toBe("HIT");
    expect(embeddings.calls.length).toBe(embedded);
    expect((await storedLog(gateway, again.logId)).cacheSourceLogId).toBe(first.logId);
  });

  it("never serves a near-miss: another entity, a negation, another number, another language", async () => {
    const { client } = semanticClient();
    await send(client, ask("What is the capital of France?"));
    const germany = await send(client, ask("What is the capital of Germany?"));
    expect(germany.status).toBe("MISS");
    expect(germany.data.choices[0]!.message.content).toBe("Berlin.");
    await send(client, ask("Is coffee good for your health?"));
    expect((await send(client, ask("Is coffee not good for your health?"))).status).toBe("MISS");
    await send(client, ask("How many days are in 3 weeks?"));
    expect((await send(client, ask("How many days are in 4 weeks?"))).status).toBe("MISS");
    expect((await send(client, ask("Quelle est la capitale de la France ?"))).status).toBe("MISS");
  });

  it("never crosses a model, a sampling parameter, a tool set, a system prompt, an earlier turn, a namespace or a workspace", async () => {
    const { client, namespace } = semanticClient();
    await send(client, ask("What is the capital of France?"));
    const paraphrase = "Tell me the capital of France, please";
    expect((await send(client, ask(paraphrase, { model: "gpt-4o" }))).status).toBe("MISS");
    expect((await send(client, ask(paraphrase, { temperature: 0.2 }))).status).toBe("MISS");
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: {} } } }];
    expect((await send(client, ask(paraphrase, { tools }))).status).toBe("MISS");
    const withSystem = { model: "gpt-4o-mini", messages: [{ role: "system" as const, content: "Answer in French." }, { role: "user" as const, content: paraphrase }] };
    expect((await send(client, withSystem)).status).toBe("MISS");
    const followUp = {
      model: "gpt-4o-mini",
      messages: [{ role: "user" as const, content: "Let us talk about Europe." }, { role: "assistant" as const, content: "Sure." }, { role: "user" as const, content: paraphrase }],
    };
    expect((await send(client, followUp)).status).toBe("MISS");
    expect((await send(semanticClient().client, ask(paraphrase))).status).toBe("MISS");

    // Another workspace, with its own embedding key, on the same namespace.
    const other = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other workspace", role: "admin", workspace_id: randomUUID() } });
    expect(other.status).toBe(201);
    const otherKey = other.body.key as string;
    const otherSlug = await createEmbeddingKey(gateway, otherKey);
    const foreign = semanticClient(gateway, { namespace, key: otherKey, slug: otherSlug });
    expect((await send(foreign.client, ask(paraphrase))).status).toBe("MISS");
    // The same paraphrase in the first namespace still hits: each refusal above was the scope, not the text.
    expect((await send(client, ask(paraphrase))).status).toBe("SEMANTIC_HIT");
  });

  it("replays a cached stream to a paraphrase event by event", async () => {
    const { client } = semanticClient();
    const read = async (content: string) => {
      const { data: stream, response } = await client.chat.completions.create({ ...ask(content), stream: true }).withResponse();
      const chunks: string[] = [];
      for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta.content ?? "");
      return { chunks, status: response.headers.get("x-gateway-cache-status") };
    };
    const first = await read("What is the capital of France?");
    expect(first.status).toBe("MISS");
    await gateway.flushLogs();
    const before = chatCalls();
    const second = await read("capital of France?");
    expect(second).toEqual({ status: "SEMANTIC_HIT", chunks: first.chunks });
    expect(chatCalls()).toBe(before);
  });

  it("serves the refreshed answer after a forced refresh, and nothing once max_age has passed", async () => {
    const { client, namespace } = semanticClient();
    const first = await send(client, ask("What is the capital of France?"));
    const refresher = openaiClient(gateway, upstream, { "x-gateway-config": semanticConfig(virtualKey), "x-gateway-cache-namespace": namespace, "x-gateway-cache-force-refresh": "true" });
    const refreshed = await send(refresher, ask("What is the capital of France?"));
    expect(refreshed.status).toBe("REFRESH");
    expect(refreshed.data.id).not.toBe(first.data.id);
    const hit = await send(client, ask("the capital of France?"));
    expect(hit.status).toBe("SEMANTIC_HIT");
    expect(hit.data.id).toBe(refreshed.data.id);

    const short = semanticClient(gateway, { cache: { max_age: 1 } });
    expect((await send(short.client, ask("What is the capital of Germany?"))).status).toBe("MISS");
    expect((await send(short.client, ask("capital of Germany"))).status).toBe("SEMANTIC_HIT");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await send(short.client, ask("the capital of Germany, please"))).status).toBe("MISS");
  });

  it("answers uncached when the embedding target fails or is slow, and the log says why", async () => {
    const { client } = semanticClient();
    try {
      embeddings.setMode({ kind: "fail", status: 500 });
      const failed = await send(client, ask("What is the capital of France?"));
      expect(failed.status).toBe("MISS");
      expect(failed.data.choices[0]!.message.content).toBe("Paris.");
      expect((await storedLog(gateway, failed.logId)).cacheNote).toBe("semantic lookup skipped: the embedding target answered 500");

      embeddings.setMode({ kind: "slow", delayMs: 2_000 });
      const started = performance.now();
      const slow = await send(client, ask("Is coffee good for your health?"));
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(slow.data.choices[0]!.message.content).toBe("In moderation, yes.");
      expect((await storedLog(gateway, slow.logId)).cacheNote).toBe("semantic lookup skipped: the embedding target did not answer within 300 ms");
    } finally {
      embeddings.setMode({ kind: "ok" });
    }
    // Nothing was placed by meaning while the target failed; the exact cache still kept the answer.
    expect((await send(client, ask("Tell me the capital of France, please"))).status).toBe("MISS");
    expect((await send(client, ask("What is the capital of France?"))).status).toBe("HIT");
  });

  it("notes a missing embedding key or target and serves the request all the same", async () => {
    const { client } = semanticClient(gateway, { slug: "no-such-key" });
    const answered = await send(client, ask("What is the capital of France?"));
    expect(answered.status).toBe("MISS");
    expect((await storedLog(gateway, answered.logId)).cacheNote).toMatch(/^semantic lookup skipped: the embedding target cannot be used: No provider or virtual key "no-such-key"/);
    const bare = openaiClient(gateway, upstream, { "x-gateway-config": JSON.stringify({ cache: { mode: "semantic" } }), "x-gateway-cache-namespace": randomUUID() });
    const uncompared = await send(bare, ask("What is the capital of France?"));
    expect(uncompared.status).toBe("MISS");
    expect((await storedLog(gateway, uncompared.logId)).cacheNote).toBe("semantic lookup skipped: the config's cache names no embedding target");
    expect((await send(bare, ask("What is the capital of France?"))).status).toBe("HIT");
  });

  it("counts semantic hits apart from exact hits in analytics and filters logs by cache status", async () => {
    const { client } = semanticClient();
    await send(client, ask("What is the capital of France?"));
    await send(client, ask("What is the capital of France?"));
    const semantic = await send(client, ask("capital of France"));
    expect(semantic.status).toBe("SEMANTIC_HIT");
    await gateway.flushLogs();
    const summary = await call(gateway, "GET", "/v1/analytics/summary");
    expect(summary.status).toBe(200);
    expect(summary.body.cache_hits).toBeGreaterThanOrEqual(1);
    expect(summary.body.semantic_cache_hits).toBeGreaterThanOrEqual(1);
    expect(summary.body.cost_saved_usd).toBeGreaterThan(0);
    const listed = await call(gateway, "GET", "/v1/logs?cache_status=SEMANTIC_HIT&limit=200");
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThan(0);
    expect(listed.body.data.every((record: { cache_status: string }) => record.cache_status === "SEMANTIC_HIT")).toBe(true);
    expect(listed.body.data.map((record: { id: string }) => record.id)).toContain(semantic.logId);
  });
});

describe("hostile embedding vectors", () => {
  /** The featurisation of texts about a cat, with one component set to `value`; other texts as usual. */
  const overflowCats = (value: number) => ({
    kind: "rewrite" as const,
    rewrite: (text: string, vector: number[]) => (/cat/i.test(text) ? vector.map((component, i) => (i === 3 ? value : component)) : vector),
  });

  for (const [value, written] of [
    [1e5, "100000"],
    [1e39, "1e+39"],
  ] as const) {
    it(`never serves by meaning across a vector whose component ${written} overflows the index's float16, and logs why`, async () => {
      try {
        embeddings.setMode(overflowCats(value));
        // A poisoned entry first: every later question in its partition would be its neighbour.
        const poisoned = semanticClient().client;
        const stored = await send(poisoned, ask("The cat sat on the mat"));
        expect(stored.status).toBe("MISS");
        expect(stored.data.choices[0]!.message.content).toBe("On the mat.");
        expect((await storedLog(gateway, stored.logId)).cacheNote).toBe(
          `semantic lookup skipped: the embedding target answered a vector the cache cannot use: component 3 (${written}) is not a finite float16 (largest 65504)`,
        );
        const unrelated = await send(poisoned, ask("How do I reset my password?"));
        expect(unrelated.status).toBe("MISS");
        expect(unrelated.data.choices[0]!.message.content).toBe("Use the reset link.");
        expect(await storedLog(gateway, unrelated.logId)).toMatchObject({ cacheStatus: "MISS", cacheNote: null, cacheSimilarity: null });

        // A poisoned question against a sound entry.
        const sound = semanticClient().client;
        expect((await send(sound, ask("How do I reset my password?"))).status).toBe("MISS");
        const asked = await send(sound, ask("Where has the cat sat?"));
        expect(asked.status).toBe("MISS");
        expect(asked.data.choices[0]!.message.content).toBe("On the mat.");
        expect((await storedLog(gateway, asked.logId)).cacheNote).toMatch(/^semantic lookup skipped: the embedding target answered a vector the cache cannot use: component 3/);
        // Still served by meaning: the sound entry is there, and only the poisoned vector was refused.
        expect((await send(sound, ask("How can I reset my password, please?"))).status).toBe("SEMANTIC_HIT");
        // The exact cache kept the refused request's answer all the same.
        expect((await send(sound, ask("Where has the cat sat?"))).status).toBe("HIT");
      } finally {
        embeddings.setMode({ kind: "ok" });
      }
    });
  }

  it("refuses a zero vector and one of too many dimensions, with the reason, and caches neither by meaning", async () => {
    const { client } = semanticClient();
    try {
      embeddings.setMode({ kind: "rewrite", rewrite: (text, vector) => (/cat/i.test(text) ? vector.map(() => 0) : vector) });
      const zero = await send(client, ask("The cat sat on the mat"));
      expect(zero.status).toBe("MISS");
      expect((await storedLog(gateway, zero.logId)).cacheNote).toBe("semantic lookup skipped: the embedding target answered a vector the cache cannot use: its norm is zero");
      embeddings.setMode({ kind: "rewrite", rewrite: (text, vector) => (/cat/i.test(text) ? Array.from({ length: 20_000 }, (_, i) => vector[i % FEATURE_DIMENSIONS]!) : vector) });
      const wide = await send(client, ask("Has the cat sat on the mat?"));
      expect(wide.status).toBe("MISS");
      expect((await storedLog(gateway, wide.logId)).cacheNote).toBe(
        "semantic lookup skipped: the embedding target answered a vector the cache cannot use: it has 20000 dimensions, more than 16384",
      );
    } finally {
      embeddings.setMode({ kind: "ok" });
    }
    // Neither was placed: a paraphrase with a sound vector finds nothing.
    expect((await send(client, ask("the cat sat on the mat, please"))).status).toBe("MISS");
  });
});

describe("the semantic cache's partitions", () => {
  it("serves a request past the workspace's partition bound uncached by meaning, with the reason, and keeps the others", async () => {
    const bounded = await startGateway({ GATEWAY_SEMANTIC_CACHE_MAX_PARTITIONS: 2 });
    try {
      const slug = await createEmbeddingKey(bounded, bounded.adminKey);
      const clients = [0, 1, 2].map(() => semanticClient(bounded, { slug }).client);
      for (const client of clients.slice(0, 2)) expect((await send(client, ask("What is the capital of France?"))).status).toBe("MISS");
      const third = await send(clients[2]!, ask("What is the capital of France?"));
      expect(third.status).toBe("MISS");
      expect(third.data.choices[0]!.message.content).toBe("Paris.");
      expect((await storedLog(bounded, third.logId)).cacheNote).toBe(
        "semantic lookup skipped: the workspace already has 2 partitions (namespace, model, embedding target) in this replica's semantic cache, its most (GATEWAY_SEMANTIC_CACHE_MAX_PARTITIONS)",
      );
      expect((await send(clients[2]!, ask("Tell me the capital of France, please"))).status).toBe("MISS");
      expect((await send(clients[2]!, ask("What is the capital of France?"))).status).toBe("HIT");
      for (const client of clients.slice(0, 2)) expect((await send(client, ask("Tell me the capital of France, please"))).status).toBe("SEMANTIC_HIT");
      expect(bounded.gateway.deps.cache.semantic!.partitionCount).toBe(2);
    } finally {
      await bounded.close();
    }
  });

  it("counts each partition's index in GATEWAY_SEMANTIC_CACHE_MAX_BYTES and evicts the least recently used partition", async () => {
    // Room for two one-entry partitions of the test's vectors, not three.
    const maxBytes = Math.floor(2.5 * SemanticIndex.fixedBytesPerSegment(FEATURE_DIMENSIONS));
    const bounded = await startGateway({ GATEWAY_SEMANTIC_CACHE_MAX_BYTES: maxBytes });
    try {
      const slug = await createEmbeddingKey(bounded, bounded.adminKey);
      const [first, second, third] = [0, 1, 2].map(() => semanticClient(bounded, { slug }).client);
      expect((await send(first!, ask("What is the capital of France?"))).status).toBe("MISS");
      expect((await send(second!, ask("What is the capital of France?"))).status).toBe("MISS");
      // The first partition is used again: the second is now the least recently used.
      expect((await send(first!, ask("capital of France?"))).status).toBe("SEMANTIC_HIT");
      expect((await send(third!, ask("What is the capital of France?"))).status).toBe("MISS");
      const semantic = bounded.gateway.deps.cache.semantic!;
      expect(semantic.partitionCount).toBe(2);
      expect(semantic.bytes).toBeLessThanOrEqual(maxBytes);
      expect(semantic.bytes).toBeGreaterThan(2 * SemanticIndex.fixedBytesPerSegment(FEATURE_DIMENSIONS));
      expect((await send(first!, ask("Tell me the capital of France, please"))).status).toBe("SEMANTIC_HIT");
      expect((await send(third!, ask("Tell me the capital of France, please"))).status).toBe("SEMANTIC_HIT");
      // Its answer is stored, in a partition again: the least recently used one (the first) makes room.
      expect((await send(second!, ask("Tell me the capital of France, please"))).status).toBe("MISS");
      expect(semantic.partitionCount).toBe(2);
      expect(semantic.bytes).toBeLessThanOrEqual(maxBytes);
    } finally {
      await bounded.close();
    }
  });
});

describe("the semantic cache across a restart", () => {
  it("keeps its entries in the store: a new gateway on the same database serves a paraphrase", async () => {
    const databaseUrl = sqliteTestUrl();
    const shared = { GATEWAY_DATABASE_URL: databaseUrl, GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"), GATEWAY_ADMIN_KEY: `restart-admin-${randomBytes(8).toString("hex")}` };
    const namespace = randomUUID();
    let first: RunningGateway | null = await startGateway(shared);
    try {
      const slug = await createEmbeddingKey(first, first.adminKey);
      const stored = await send(semanticClient(first, { namespace, slug }).client, ask("What is the capital of France?"));
      expect(stored.status).toBe("MISS");
      // The entry is written after the answer: wait until the store has it.
      for (let tries = 0; tries < 50 && (await first.gateway.deps.store.semanticCache.live(Date.now(), null, 10)).length === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await first.close();
      first = null;
      const second = await startGateway(shared);
      try {
        expect(await second.gateway.semanticCacheLoaded).toBe(1);
        const before = chatCalls();
        const hit = await send(semanticClient(second, { namespace, slug }).client, ask("Tell me the capital of France"));
        expect(hit.status).toBe("SEMANTIC_HIT");
        expect(hit.data.choices[0]!.message.content).toBe("Paris.");
        expect(chatCalls()).toBe(before);
        expect((await storedLog(second, hit.logId)).cacheSourceLogId).toBe(stored.logId);
      } finally {
        await second.close();
      }
    } finally {
      await first?.close();
      await removeSqliteTestDatabase(databaseUrl);
    }
  });
});
