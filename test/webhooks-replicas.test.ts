import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startOwnRedis, type OwnRedis } from "./support/own-redis.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

/**
 * Two replicas on one PostgreSQL, racing: a receiver in the test checks every signature and
 * counts exactly one delivery per threshold and period, with a Redis of the test's own shared by
 * the replicas, and with no Redis at all (each replica metering alone and crossing the same
 * threshold by itself: the store keeps the event once).
 */

const PROMPT = "webhooks through two replicas";
/** gpt-4o: 20 tokens in at $2.50, 50 out at $10 per million. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;

let upstream: LLMock;
let redis: OwnRedis;
const databases: TestDatabase[] = [];
const running: RunningGateway[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage(PROMPT, { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  redis = await startOwnRedis();
});

afterAll(async () => {
  for (const gateway of running) await gateway.close();
  for (const receiver of receivers) await receiver.close();
  for (const database of databases) await database.cleanup();
  await redis?.stop();
  await upstream?.stop();
});

async function replicas(shared: { redis: boolean }): Promise<RunningGateway[]> {
  const database = await postgresTestUrl();
  databases.push(database);
  const config = {
    GATEWAY_DATABASE_URL: database.url,
    ...(shared.redis && { GATEWAY_REDIS_URL: redis.url }),
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_ADMIN_KEY: `hooks-admin-${randomBytes(8).toString("hex")}`,
    GATEWAY_WEBHOOK_POLL_INTERVAL_MS: 20,
    GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: 50,
  };
  const pair = [await startGateway(config), await startGateway(config)];
  running.push(...pair);
  return pair;
}

async function hookOn(gateway: RunningGateway): Promise<WebhookReceiver> {
  const hook = await startWebhookReceiver();
  receivers.push(hook);
  const created = await call(gateway, "POST", "/v1/webhooks", { body: { url: hook.url, events: ["budget.threshold_crossed", "run.halted"] } });
  expect(created.status).toBe(201);
  hook.setSecret(created.body.secret);
  return hook;
}

async function chat(replica: RunningGateway, stream: boolean): Promise<number> {
  const client = new OpenAI({
    baseURL: `${replica.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": replica.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` },
  });
  const body = { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user" as const, content: PROMPT }] };
  try {
    if (stream) {
      for await (const _ of await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } })) void _;
    } else await client.chat.completions.create(body);
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error.status ?? 0;
    throw error;
  }
}

/** Plain and streamed requests through both replicas at once, in waves, until the budget refuses a whole wave. */
async function spendThrough(pair: RunningGateway[]): Promise<void> {
  for (let wave = 0; wave < 12; wave++) {
    const statuses = await Promise.all(Array.from({ length: 6 }, (_, index) => chat(pair[index % 2]!, index % 3 === 0)));
    if (statuses.every((status) => status === 412)) return;
  }
  throw new Error("the budget never refused a whole wave");
}

describe("webhook events with two replicas racing", () => {
  it("with a shared Redis: one signed delivery per threshold, however the requests race", async () => {
    const pair = await replicas({ redis: true });
    const hook = await hookOn(pair[0]!);
    const budget = await call(pair[1]!, "POST", "/v1/budgets", { body: { name: "shared", scope: { type: "workspace" }, limit_usd: 8 * COST, alert_thresholds: [0.25, 0.5, 0.75, 1], period: { type: "calendar", unit: "day" } } });
    expect(budget.status).toBe(201);
    await spendThrough(pair);
    await expect.poll(() => hook.verified().length, { timeout: 5_000 }).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(4);
    expect(hook.received.map((entry) => entry.event.data.threshold).sort()).toEqual([0.25, 0.5, 0.75, 1]);
  }, 60_000);

  it("with a shared Redis: the same event emitted by both replicas at once is delivered once", async () => {
    const pair = await replicas({ redis: true });
    const hook = await hookOn(pair[0]!);
    const workspaceId = (await call(pair[0]!, "GET", "/v1/webhooks")).body.data[0].workspace_id as string;
    const event = { type: "run.halted" as const, workspaceId, dedupKey: "run:trace-race:1", data: { trace_id: "trace-race" } };
    const queued = await Promise.all(Array.from({ length: 10 }, (_, index) => pair[index % 2]!.gateway.deps.webhooks.events.emit(event)));
    expect(queued.reduce((sum, count) => sum + count, 0)).toBe(1);
    await expect.poll(() => hook.verified("run.halted").length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(1);
  }, 60_000);

  it("without Redis, each replica metering alone: the store keeps each threshold's event once", async () => {
    const pair = await replicas({ redis: false });
    const hook = await hookOn(pair[0]!);
    await call(pair[0]!, "POST", "/v1/budgets", { body: { name: "alone", scope: { type: "workspace" }, limit_usd: 4 * COST, alert_thresholds: [0.5, 1], period: { type: "calendar", unit: "day" } } });
    // Each replica meters its own counters: each spends the whole limit itself and crosses both thresholds.
    await expect.poll(async () => (await call(pair[1]!, "GET", "/v1/budgets")).body.total).toBe(1);
    for (const replica of pair) for (let index = 0; index < 4; index++) expect(await chat(replica, index % 2 === 0)).toBe(200);
    for (const replica of pair) await replica.gateway.deps.webhooks.events.settled();
    await expect.poll(() => hook.verified().length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received.map((entry) => entry.event.data.threshold).sort()).toEqual([0.5, 1]);
  }, 60_000);
});
