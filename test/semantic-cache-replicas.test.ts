import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { startUpstream, UPSTREAM_KEY } from "./support/harness.ts";
import { startEmbeddingServer, type EmbeddingServer } from "../scripts/semantic/embedding-server.ts";
import { openStore, type Store } from "../src/store/open-store.ts";

/**
 * Two gateway processes (`npm start`) on one PostgreSQL and one Redis: an answer one replica
 * stores by meaning is served by the other, and a refresh on one replaces it on both.
 */
const ADMIN_KEY = `semantic-admin-${randomBytes(12).toString("hex")}`;

let database: TestDatabase;
let upstream: LLMock;
let embeddings: EmbeddingServer;
let dataDir: string;
let replicas: BunGateway[] = [];
let store: Store;
let config: string;

beforeAll(async () => {
  database = await postgresTestUrl();
  upstream = await startUpstream();
  upstream.onMessage(/capital of france/i, { content: "Paris." });
  embeddings = await startEmbeddingServer();
  dataDir = await mkdtemp(join(tmpdir(), "gateway-semantic-replicas-"));
  const env = {
    GATEWAY_ADMIN_KEY: ADMIN_KEY,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_REDIS_URL: "redis://127.0.0.1:6379",
    GATEWAY_LOG_FLUSH_INTERVAL_MS: "50",
    GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: "600000",
  };
  replicas = [await startBunGateway(database.url, env), await startBunGateway(database.url, env)];
  store = await openStore(database.url);
  const created = await fetch(`${replicas[0]!.url}/v1/virtual-keys`, {
    method: "POST",
    headers: { "x-gateway-api-key": ADMIN_KEY, "content-type": "application/json" },
    body: JSON.stringify({ name: "embeddings", provider: "openai", key: "sk-embed-0123456789", custom_host: embeddings.url }),
  });
  expect(created.status).toBe(201);
  const { slug } = (await created.json()) as { slug: string };
  config = JSON.stringify({ cache: { mode: "semantic", max_age: 600, similarity_threshold: 0.9, embedding: { virtual_key: slug, model: "text-embedding-3-small" } } });
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await store?.close();
  await upstream?.stop();
  await embeddings?.close();
  await database?.cleanup();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function client(replica: BunGateway, namespace: string, extra: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${replica.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": `${upstream.url}/v1`,
      "x-gateway-config": config,
      "x-gateway-cache-namespace": namespace,
      ...extra,
    },
  });
}

async function ask(on: OpenAI, content: string) {
  const { data, response } = await on.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content }] }).withResponse();
  return { data, status: response.headers.get("x-gateway-cache-status"), logId: response.headers.get("x-gateway-log-id")! };
}

/** Gives the entry time to reach the store (it is written after the answer) and the other replica (announced after that). */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe("the semantic cache across replicas", () => {
  it("serves on one replica what the other stored, and a refresh on one replaces it on both", async () => {
    const namespace = randomUUID();
    const stored = await ask(client(replicas[0]!, namespace), "What is the capital of France?");
    expect(stored.status).toBe("MISS");
    await settle();
    const live = await store.semanticCache.live(Date.now(), null, 1000);
    expect(live.some((entry) => entry.logId === stored.logId)).toBe(true);

    const calls = upstream.getRequests().length;
    const served = await ask(client(replicas[1]!, namespace), "Tell me the capital of France");
    expect(served.status).toBe("SEMANTIC_HIT");
    expect(served.data.id).toBe(stored.data.id);
    expect(upstream.getRequests().length).toBe(calls);

    const refreshed = await ask(client(replicas[0]!, namespace, { "x-gateway-cache-force-refresh": "true" }), "What is the capital of France?");
    expect(refreshed.status).toBe("REFRESH");
    await settle();
    const again = await ask(client(replicas[1]!, namespace), "the capital of France, please");
    expect(again.status).toBe("SEMANTIC_HIT");
    expect(again.data.id).toBe(refreshed.data.id);
  });
});
