import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { startUpstream, UPSTREAM_KEY } from "./support/harness.ts";
import { testRedisUrl } from "./support/services.ts";

/**
 * The request path as users run it: `npm start` under Bun, with Redis, taking concurrent mixed
 * traffic (plain, streamed, cached, rate-limited, translated to Anthropic, uploads). Every request
 * answered is stored in the log exactly once, whatever its kind.
 */
let upstream: LLMock;
let gateway: BunGateway;
let databaseUrl: string;
let limitedKey: string;

const ROUNDS = 25;
const KINDS = ["plain", "streamed", "cached", "limited", "anthropic", "upload"] as const;
type Kind = (typeof KINDS)[number];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("mixed traffic", { content: "Every answer is logged once.", usage: { input_tokens: 7, output_tokens: 5 } });
  databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "gateway-mixed-")), "gateway.db")}`;
  gateway = await startBunGateway(databaseUrl, { GATEWAY_REDIS_URL: testRedisUrl() });
  const created = await fetch(`${gateway.url}/v1/api-keys`, {
    method: "POST",
    headers: { "x-gateway-api-key": gateway.adminKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "mixed-traffic limited", role: "service", rate_limit: { requests_per_minute: 1_000_000 } }),
  });
  expect(created.status).toBe(201);
  limitedKey = ((await created.json()) as { key: string }).key;
}, 30_000);

afterAll(async () => {
  if (gateway && gateway.child.exitCode === null) await gateway.stop();
  await upstream?.stop();
});

function client(key: string, extra: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": key, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, ...extra },
  });
}

const messages = [{ role: "user" as const, content: "mixed traffic" }];

/** Sends one request of a kind; resolves with the log id the gateway answered with. */
async function send(kind: Kind, round: number): Promise<string> {
  const admin = gateway.adminKey;
  if (kind === "streamed") {
    const { data: stream, response } = await client(admin).chat.completions.create({ model: "gpt-4o-mini", messages, stream: true }).withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("Every answer is logged once.");
    return response.headers.get("x-gateway-log-id")!;
  }
  if (kind === "upload") {
    const file = await toFile(Buffer.from(`{"round":${round}}\n`), `round-${round}.jsonl`);
    const { response } = await client(admin).files.create({ file, purpose: "batch" }).withResponse();
    return response.headers.get("x-gateway-log-id")!;
  }
  const headers: Record<string, string> =
    kind === "cached" ? { "x-gateway-config": JSON.stringify({ cache: { mode: "simple", max_age: 600 } }) } : kind === "anthropic" ? { "x-gateway-provider": "anthropic" } : {};
  const model = kind === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini";
  const { data, response } = await client(kind === "limited" ? limitedKey : admin, headers).chat.completions.create({ model, messages }).withResponse();
  expect(data.choices[0]?.message.content).toBe("Every answer is logged once.");
  if (kind === "limited") expect(response.headers.get("x-ratelimit-limit-requests")).toBe("1000000");
  return response.headers.get("x-gateway-log-id")!;
}

describe("concurrent mixed traffic under npm start", () => {
  it("stores every answered request exactly once: plain, streamed, cached, limited, translated and uploads", async () => {
    const answered: { kind: Kind; logId: string }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Each round sends every kind at once, twice over, so kinds overlap on the request path.
      const sent = await Promise.all([...KINDS, ...KINDS].map(async (kind) => ({ kind, logId: await send(kind, round) })));
      answered.push(...sent);
    }
    expect(answered).toHaveLength(ROUNDS * KINDS.length * 2);
    expect(answered.every(({ logId }) => /^[0-9a-f-]{36}$/.test(logId))).toBe(true);

    // SIGTERM drains and flushes every pending record before the process exits.
    expect(await gateway.stop()).toBe(0);
    const db = createClient({ url: databaseUrl });
    try {
      const rows = (await db.execute("select id, route, provider, cache_status, status from logs")).rows as unknown as { id: string; route: string; provider: string; cache_status: string; status: number }[];
      const stored = new Map(rows.map((row) => [row.id, row]));
      expect(rows.length).toBe(stored.size);
      const missing = answered.filter(({ logId }) => !stored.has(logId));
      expect(missing).toEqual([]);
      // Control-plane calls (the key's creation) are audited, not logged: the log holds exactly the answered requests.
      expect(rows.length).toBe(answered.length);
      const byKind = (kind: Kind) => answered.filter((entry) => entry.kind === kind).map(({ logId }) => stored.get(logId)!);
      expect(byKind("upload").every((row) => row.route === "createFile" && row.status === 200)).toBe(true);
      expect(byKind("anthropic").every((row) => row.provider === "anthropic" && row.status === 200)).toBe(true);
      const cached = byKind("cached").map((row) => row.cache_status);
      expect(cached.filter((status) => status === "HIT").length).toBeGreaterThan(0);
      expect(cached.every((status) => status === "HIT" || status === "MISS")).toBe(true);
      expect(byKind("plain").every((row) => row.route === "createChatCompletion" && row.cache_status === "DISABLED")).toBe(true);
    } finally {
      db.close();
    }
  }, 120_000);
});
