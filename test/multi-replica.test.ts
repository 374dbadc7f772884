import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { sql } from "kysely";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { startUpstream, UPSTREAM_KEY } from "./support/harness.ts";
import { openStore, type Store } from "../src/store/open-store.ts";
import { testRedisUrl } from "./support/services.ts";

/**
 * Two gateway processes (`npm start`) on one PostgreSQL and one Redis, as replicas behind a
 * load balancer: budgets, rate limits and control-plane changes must hold across both.
 */
const ADMIN_KEY = `replica-admin-${randomBytes(12).toString("hex")}`;
// gpt-4o: $2.5 in, $10 out per million tokens. Each answer uses 20 + 50 tokens: $0.00055.
const COST_PER_CALL = (20 * 2.5 + 50 * 10) / 1e6;
const CHAT = { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user", content: "spend across replicas" }] };
// The worst case a call reserves: its body's bytes at the input price, max_tokens at the output price.
const RESERVATION = (Buffer.byteLength(JSON.stringify(CHAT)) * 2.5 + 50 * 10) / 1e6;

let database: TestDatabase;
let upstream: LLMock;
let dataDir: string;
let replicas: BunGateway[] = [];
let store: Store;

beforeAll(async () => {
  database = await postgresTestUrl();
  upstream = await startUpstream();
  upstream.onMessage("spend across replicas", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  upstream.onMessage("rate across replicas", { content: "ok", usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } });
  dataDir = await mkdtemp(join(tmpdir(), "gateway-replicas-"));
  const env = {
    GATEWAY_ADMIN_KEY: ADMIN_KEY,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_REDIS_URL: testRedisUrl(),
    GATEWAY_LOG_FLUSH_INTERVAL_MS: "50",
    GATEWAY_SPEND_FLUSH_INTERVAL_MS: "100",
    // Long TTLs: a change can only reach the other replica in time through Redis.
    GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: "600000",
    GATEWAY_KEY_CACHE_TTL_MS: "600000",
  };
  // One at a time: both run the migrations, which take Kysely's lock anyway.
  replicas = [await startBunGateway(database.url, env), await startBunGateway(database.url, env)];
  store = await openStore(database.url);
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await store?.close();
  await upstream?.stop();
  await database?.cleanup();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function send(replica: BunGateway, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${replica.url}${path}`, {
    method,
    headers: { "x-gateway-api-key": ADMIN_KEY, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed: Record<string, any> = text.startsWith("{") ? (JSON.parse(text) as Record<string, any>) : { text };
  return { status: response.status, headers: response.headers, body: parsed };
}

async function createVirtualKey(extra: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await send(replicas[0]!, "POST", "/v1/virtual-keys", { name: "replicated", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1`, ...extra });
  expect(created.status).toBe(201);
  return created.body as { id: string; slug: string };
}

const chat = (replica: BunGateway, slug: string, body: unknown = CHAT) => send(replica, "POST", "/v1/chat/completions", body, { "x-gateway-virtual-key": slug });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("two replicas on one PostgreSQL and one Redis", () => {
  it("100 concurrent requests against a nearly spent virtual key overshoot its budget by at most one reservation", async () => {
    const limit = 8 * COST_PER_CALL + 0.5 * COST_PER_CALL;
    const key = await createVirtualKey({ budget: { credit_limit_usd: limit, period: "monthly" } });
    // Nearly spend it: 6 calls, alternating replicas.
    for (let index = 0; index < 6; index++) expect((await chat(replicas[index % 2]!, key.slug)).status).toBe(200);

    const answers = await Promise.all(Array.from({ length: 100 }, (_, index) => chat(replicas[index % 2]!, key.slug)));
    const statuses = answers.map((answer) => answer.status);
    const served = statuses.filter((status) => status === 200).length;
    expect(served + statuses.filter((status) => status === 412).length).toBe(100);
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(4);
    const refused = answers.find((answer) => answer.status === 412)!;
    expect(refused.body).toMatchObject({ error: { code: "budget_exhausted", type: "budget_error" } });
    expect(refused.body.error.message).toContain(`virtual key "${key.slug}"`);
    expect(refused.body.error.message).toContain(`$${limit}`);

    // Every request's log, from either replica, is in the one store; their costs are the settled spend.
    const logIds = answers.map((answer) => answer.headers.get("x-gateway-log-id")!);
    const stored = await until(
      () => store.db.selectFrom("logs").select(["id", "cost_usd"]).where("virtual_key_id", "=", key.id).execute(),
      (rows) => rows.length === 106,
    );
    expect(stored).toHaveLength(106);
    expect(new Set(stored.map((row) => row.id))).toEqual(new Set([...logIds, ...stored.map((row) => row.id)]));
    expect(logIds.every((id) => stored.some((row) => row.id === id))).toBe(true);
    const loggedSpend = stored.reduce((sum, row) => sum + Number(row.cost_usd ?? 0), 0);
    expect(loggedSpend).toBeCloseTo((6 + served) * COST_PER_CALL, 9);
    expect(loggedSpend).toBeLessThanOrEqual(limit + RESERVATION);

    for (const replica of replicas) {
      const read = await send(replica, "GET", `/v1/virtual-keys/${key.slug}`);
      expect(read.body.spent_usd).toBeCloseTo(loggedSpend, 9);
      expect(read.body.spent_usd).toBeLessThanOrEqual(limit + RESERVATION);
      expect(read.body.remaining_usd).toBeCloseTo(Math.max(0, limit - loggedSpend), 9);
    }
    // Both replicas' settled spend reaches key_spend in their batches, summing to the same.
    // The key's own limits are a budget of its scope: its spend is kept under the budget's id.
    const own = await store.budgets.keyBudget(DEFAULT_WORKSPACE_ID, "virtual_key", key.id);
    const persisted = await until(
      () => store.db.selectFrom("key_spend").select(sql<number>`sum(spent_usd)`.as("total")).where("key_id", "=", own!.id).executeTakeFirst(),
      (row) => Math.abs(Number(row?.total ?? 0) - loggedSpend) < 1e-9,
    );
    expect(Number(persisted?.total)).toBeCloseTo(loggedSpend, 9);
  }, 60_000);

  it("a rate limit of N requests per minute lets exactly N through across both replicas", async () => {
    // Fixed UTC minute windows: start well inside one so the burst cannot straddle two.
    const second = new Date().getUTCSeconds();
    if (second > 45) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    const key = await createVirtualKey({ rate_limit: { requests_per_minute: 7 } });
    const body = { ...CHAT, messages: [{ role: "user", content: "rate across replicas" }] };
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => chat(replicas[index % 2]!, key.slug, body)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(7);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited).toHaveLength(23);
    for (const answer of limited) {
      expect(answer.body).toMatchObject({ error: { code: "rate_limited", type: "rate_limit_error" } });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get("x-ratelimit-limit-requests")).toBe("7");
      expect(answer.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      expect(answer.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/);
    }
    const admitted = answers.filter((answer) => answer.status === 200).map((answer) => Number(answer.headers.get("x-ratelimit-remaining-requests")));
    expect(admitted.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  }, 90_000);

  it("a virtual key changed through one replica is used by the other within a second", async () => {
    const key = await createVirtualKey({});
    const body = { ...CHAT, messages: [{ role: "user", content: "rate across replicas" }] };
    // The other replica caches the key (and that it has no limits) for ten minutes.
    const before = await chat(replicas[1]!, key.slug, body);
    expect(before.status).toBe(200);
    expect(before.headers.get("x-ratelimit-limit-requests")).toBeNull();

    const changed = await send(replicas[0]!, "PUT", `/v1/virtual-keys/${key.slug}`, { rate_limit: { requests_per_minute: 1000 } });
    expect(changed.status).toBe(200);
    const started = Date.now();
    const after = await until(
      () => chat(replicas[1]!, key.slug, body),
      (answer) => answer.headers.get("x-ratelimit-limit-requests") === "1000",
      1_000,
    );
    expect(after.headers.get("x-ratelimit-limit-requests")).toBe("1000");
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("a gateway key's budget changed through one replica holds on the other", async () => {
    const created = await send(replicas[0]!, "POST", "/v1/api-keys", { name: "metered service", role: "service" });
    expect(created.status).toBe(201);
    const secret = created.body.key as string;
    const key = await createVirtualKey({});
    const asService = (replica: BunGateway) => send(replica, "POST", "/v1/chat/completions", CHAT, { "x-gateway-api-key": secret, "x-gateway-virtual-key": key.slug });
    expect((await asService(replicas[1]!)).status).toBe(200);

    const limited = await send(replicas[0]!, "PATCH", `/v1/api-keys/${created.body.id}`, { budget: { credit_limit_usd: COST_PER_CALL / 2, period: "daily" } });
    expect(limited.status).toBe(200);
    expect(limited.body.budget).toEqual({ credit_limit_usd: COST_PER_CALL / 2, period: "daily" });
    // The first call under the budget is admitted (nothing spent yet); once it settles, the next is refused.
    const first = await until(() => asService(replicas[1]!), (answer) => answer.status === 200);
    expect(first.status).toBe(200);
    const refused = await until(() => asService(replicas[1]!), (answer) => answer.status === 412);
    expect(refused.body.error.message).toContain(`gateway key ${created.body.id}`);
    const read = await send(replicas[1]!, "GET", `/v1/api-keys/${created.body.id}`);
    expect(read.body.spent_usd).toBeCloseTo(COST_PER_CALL, 9);
    expect(read.body.remaining_usd).toBe(0);
  });

  it("a gateway key rotated and revoked through one replica is refused on the other within a second, both secrets", async () => {
    const created = await send(replicas[0]!, "POST", "/v1/api-keys", { name: "rotated service", role: "service" });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const readLogs = (replica: BunGateway, secret: string) => send(replica, "GET", "/v1/logs?limit=1", undefined, { "x-gateway-api-key": secret });
    const first = created.body.key as string;
    expect((await readLogs(replicas[1]!, first)).status).toBe(200);

    const started = Date.now();
    const second = await send(replicas[0]!, "POST", `/v1/api-keys/${id}/rotate`, { grace_period_seconds: 0 });
    expect(second.status).toBe(200);
    expect((await until(() => readLogs(replicas[1]!, first), (answer) => answer.status === 401)).status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await readLogs(replicas[1]!, second.body.key as string)).status).toBe(200);

    const third = await send(replicas[0]!, "POST", `/v1/api-keys/${id}/rotate`, { grace_period_seconds: 600 });
    expect((await readLogs(replicas[1]!, second.body.key as string)).status).toBe(200);
    expect((await readLogs(replicas[1]!, third.body.key as string)).status).toBe(200);
    expect((await send(replicas[0]!, "DELETE", `/v1/api-keys/${id}`)).status).toBe(200);
    for (const secret of [second.body.key as string, third.body.key as string]) {
      expect((await until(() => readLogs(replicas[1]!, secret), (answer) => answer.status === 401, 1_000)).status).toBe(401);
    }
  });
});
