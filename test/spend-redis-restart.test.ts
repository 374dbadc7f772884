import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { Redis } from "ioredis";
import { SPEND_EPOCH_KEY } from "../src/shared-state/spend-scripts.ts";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { call, freePort, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/**
 * Two replicas on one PostgreSQL database and one Redis of the test's own (no persistence).
 * Plain and streamed requests run concurrently through both; Redis is killed mid-run, and
 * later started again empty. The bound docs/budgets-and-limits.md states holds: metering alone, each replica goes
 * on from the count it last saw, so it admits at most what was left of the limit then; once
 * Redis is back empty, one replica seeds it from the store (spend) and every replica hands it
 * its counts, so nothing is admitted past the limit again, and the budget's spend shown is
 * the store's, not zero.
 */

const LIMIT = 10;
const PROMPT = "spend through a redis restart";
// 1,000 + 1,000 tokens of gpt-4o-mini: $0.00015 + $0.0006 per call.
const COST_PER_CALL = 0.00075;
const BUDGET_USD = 0.0045;

let database: TestDatabase;
let upstream: LLMock;
let redisPort: number;
let redisServer: ChildProcess;
let replicas: RunningGateway[] = [];
let rateKey: { id: string; slug: string };
let budgetKey: { id: string; slug: string };

async function startRedis(): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const probe = new Redis({ port: redisPort, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => undefined);
  await until(() => probe.connect().then(() => true, () => false));
  probe.disconnect();
  return child;
}

async function killRedis(): Promise<void> {
  const exited = new Promise((resolve) => redisServer.once("exit", resolve));
  redisServer.kill("SIGKILL");
  await exited;
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  database = await postgresTestUrl();
  upstream = await startUpstream();
  upstream.onMessage(PROMPT, { content: "ok", usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 } });
  redisPort = await freePort();
  redisServer = await startRedis();
  const config = {
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    GATEWAY_SPEND_FLUSH_INTERVAL_MS: 50,
    GATEWAY_METRICS: "public" as const,
    // One deployment: the same master key (to open the stored upstream key) and admin key.
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_ADMIN_KEY: `restart-admin-${randomBytes(8).toString("hex")}`,
  };
  replicas = [await startGateway(config), await startGateway(config)];
  const create = async (extra: Record<string, unknown>) => {
    const created = await call(replicas[0]!, "POST", "/v1/virtual-keys", { body: { name: "restart", provider: "openai", key: "sk-restart-upstream-0123456789", custom_host: `${upstream.url}/v1`, ...extra } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; slug: string };
  };
  // A daily window, so the run never straddles a window's end.
  rateKey = await create({ rate_limit: { requests_per_day: LIMIT } });
  budgetKey = await create({ budget: { credit_limit_usd: BUDGET_USD, period: "monthly" } });
}, 60_000);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  if (redisServer?.exitCode === null) await killRedis();
  await upstream?.stop();
  await database?.cleanup();
});

interface Answer {
  replica: number;
  status: number;
  remaining: number | null;
}

/** One chat through the official client: plain or streamed, through `replica`, with the virtual key. */
async function chat(replica: number, slug: string, stream: boolean): Promise<Answer> {
  const client = new OpenAI({
    baseURL: `${replicas[replica]!.url}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": replicas[replica]!.adminKey, "x-gateway-virtual-key": slug },
  });
  const body = { model: "gpt-4o-mini", max_tokens: 10, messages: [{ role: "user" as const, content: PROMPT }] };
  try {
    const { response, data } = stream
      ? await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }).withResponse()
      : await client.chat.completions.create(body).withResponse();
    if (stream) for await (const _ of data as AsyncIterable<unknown>) void _;
    const remaining = response.headers.get("x-ratelimit-remaining-requests");
    return { replica, status: response.status, remaining: remaining === null ? null : Number(remaining) };
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { replica, status: error.status ?? 0, remaining: null };
    throw error;
  }
}

async function metric(replica: number, name: string): Promise<number> {
  const text = await (await fetch(`${replicas[replica]!.url}/metrics`)).text();
  const line = text.split("\n").find((each) => each.startsWith(`${name} `) || each.startsWith(`${name}{`));
  return line ? Number(line.split(" ").at(-1)) : Number.NaN;
}

/** The settled spend the store keeps for the virtual key's own budget (a budget of its scope) this month. */
async function storedSpend(): Promise<number> {
  const { store } = replicas[0]!.gateway.deps;
  const own = await store.budgets.keyBudget(DEFAULT_WORKSPACE_ID, "virtual_key", budgetKey.id);
  const rows = await store.spend.inPeriods(["none", new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)).toISOString()]);
  return rows.find((row) => row.keyId === own?.id)?.spentUsd ?? 0;
}

describe("two replicas through a Redis killed, then restarted empty", () => {
  it("admit at most what each last saw was left during the outage, nothing past the limit after, and keep the budget's spend", async () => {
    // Redis up: six requests through both replicas, plain and streamed; three budget calls.
    const before: Answer[] = [];
    for (let index = 0; index < 6; index++) before.push(await chat(index % 2, rateKey.slug, index % 3 === 0));
    expect(before.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    for (let index = 0; index < 3; index++) expect((await chat(index % 2, budgetKey.slug, index === 1)).status).toBe(200);
    // What each replica last saw was left of the limit.
    const lastSeenLeft = [0, 1].map((replica) => before.filter((answer) => answer.replica === replica).at(-1)!.remaining!);
    expect(lastSeenLeft).toEqual([LIMIT - 5, LIMIT - 6]);

    // Redis killed: 15 concurrent requests per replica, plain and streamed.
    await killRedis();
    const during = await Promise.all(Array.from({ length: 30 }, (_, index) => chat(index % 2, rateKey.slug, index % 4 < 2)));
    for (const answer of during) expect([200, 429]).toContain(answer.status);
    const admittedDuring = [0, 1].map((replica) => during.filter((answer) => answer.replica === replica && answer.status === 200).length);
    // Each replica went on from the count it last saw: at most what was left then, not a whole limit.
    expect(admittedDuring[0]).toBeLessThanOrEqual(lastSeenLeft[0]!);
    expect(admittedDuring[1]).toBeLessThanOrEqual(lastSeenLeft[1]!);
    expect(admittedDuring[0]! + admittedDuring[1]!).toBeGreaterThan(0);
    for (const replica of [0, 1]) {
      expect(await metric(replica, "gateway_spend_counters_shared")).toBe(0);
      expect(await metric(replica, 'gateway_spend_local_admissions_total{start="last_shared"}')).toBeGreaterThan(0);
    }

    // Redis back, empty: requests go on through both replicas.
    redisServer = await startRedis();
    const probe = new Redis({ port: redisPort, host: "127.0.0.1" });
    try {
      expect(await probe.get(SPEND_EPOCH_KEY)).toBeNull();
      const after: Answer[] = [];
      // Until both replicas share counters again, then some more.
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        after.push(...(await Promise.all([chat(0, rateKey.slug, false), chat(1, rateKey.slug, true)])));
        if ((await metric(0, "gateway_spend_counters_shared")) === 1 && (await metric(1, "gateway_spend_counters_shared")) === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      after.push(...(await Promise.all(Array.from({ length: 10 }, (_, index) => chat(index % 2, rateKey.slug, index % 2 === 1)))));
      expect(await probe.get(SPEND_EPOCH_KEY)).not.toBeNull();
      // Seeded by one replica only (the lock), not by both.
      expect((await metric(0, "gateway_spend_redis_reseeds_total")) + (await metric(1, "gateway_spend_redis_reseeds_total"))).toBe(1);
      // Nothing past what the outage let through: every request after Redis came back is refused.
      const admittedAfter = after.filter((answer) => answer.status === 200).length;
      const admittedBefore = 6 + admittedDuring[0]! + admittedDuring[1]!;
      expect(admittedAfter, JSON.stringify(after)).toBe(Math.max(0, LIMIT - admittedBefore));
      // The bound docs/budgets-and-limits.md states: at most (replicas − 1) × what was left, past the limit.
      expect(admittedBefore + admittedAfter).toBeLessThanOrEqual(LIMIT + Math.max(...lastSeenLeft));

      // The budget: its spend shown on both replicas is the store's, not zero, and it still stops at the limit.
      await until(async () => (await storedSpend()) >= 3 * COST_PER_CALL - 1e-9);
      for (const replica of replicas) {
        const view = await call(replica, "GET", `/v1/virtual-keys/${budgetKey.slug}`);
        expect(view.body.spent_usd).toBeGreaterThanOrEqual(3 * COST_PER_CALL - 1e-9);
      }
      const budgetAnswers: number[] = [];
      for (let index = 0; index < 10; index++) budgetAnswers.push((await chat(index % 2, budgetKey.slug, index % 2 === 0)).status);
      expect(budgetAnswers).toContain(412);
      // Settled spend reaches the store within the flush interval.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Sequential calls: at most one call's cost past the limit, where a budget reset to zero would have allowed six more.
      expect(await storedSpend()).toBeLessThanOrEqual(BUDGET_USD + COST_PER_CALL + 1e-9);
    } finally {
      probe.disconnect();
    }
  }, 90_000);
});
