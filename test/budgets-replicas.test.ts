import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startOwnRedis, type OwnRedis } from "./support/own-redis.ts";

/**
 * An end user's budget held by two replicas on one PostgreSQL and a Redis of the test's own:
 * plain and streamed requests for the same end user race through both, and the spend settled
 * passes the limit by at most one request's reservation (docs/budgets-and-limits.md).
 */

const PROMPT = "an end user spends through two replicas";
/** gpt-4o: 20 tokens in at $2.50, 50 out at $10 per million. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;
const LIMIT = 8 * COST;

let database: TestDatabase;
let upstream: LLMock;
let redis: OwnRedis;
let replicas: RunningGateway[] = [];

beforeAll(async () => {
  database = await postgresTestUrl();
  upstream = await startUpstream();
  upstream.onMessage(PROMPT, { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  redis = await startOwnRedis();
  const config = {
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_REDIS_URL: redis.url,
    GATEWAY_SPEND_FLUSH_INTERVAL_MS: 50,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_ADMIN_KEY: `replicas-admin-${randomBytes(8).toString("hex")}`,
  };
  replicas = [await startGateway(config), await startGateway(config)];
}, 60_000);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await redis?.stop();
  await upstream?.stop();
  await database?.cleanup();
});

/** The worst case one of these requests reserves: its JSON body's bytes as prompt tokens, max_tokens as completion tokens. */
function reservation(stream: boolean): number {
  const body = JSON.stringify({ model: "gpt-4o", max_tokens: 50, messages: [{ role: "user", content: PROMPT }], user: "alice", ...(stream && { stream: true, stream_options: { include_usage: true } }) });
  return (Buffer.byteLength(body) * 2.5 + 50 * 10) / 1e6;
}

async function chat(replica: RunningGateway, stream: boolean): Promise<{ status: number; logId: string | null }> {
  const client = new OpenAI({
    baseURL: `${replica.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": replica.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` },
  });
  const body = { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user" as const, content: PROMPT }], user: "alice" };
  try {
    if (stream) {
      const { data, response } = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }).withResponse();
      for await (const _ of data) void _;
      return { status: response.status, logId: response.headers.get("x-gateway-log-id") };
    }
    const { response } = await client.chat.completions.create(body).withResponse();
    return { status: response.status, logId: response.headers.get("x-gateway-log-id") };
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status ?? 0, logId: null };
    throw error;
  }
}

describe("an end user's budget across two replicas", () => {
  it("concurrent plain and streamed requests pass the limit by at most one reservation, and both replicas read the same spend", async () => {
    const created = await call(replicas[0]!, "POST", "/v1/budgets", {
      body: { name: "alice", scope: { type: "user", user: "alice" }, limit_usd: LIMIT, period: { type: "calendar", unit: "day", time_zone: "Europe/Paris" } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Waves of concurrent requests, half streamed, alternating replicas, until the budget refuses a whole wave.
    const answers: { status: number; logId: string | null }[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const round = await Promise.all(Array.from({ length: 8 }, (_, index) => chat(replicas[index % 2]!, index % 4 < 2)));
      answers.push(...round);
      if (round.every((answer) => answer.status === 412)) break;
    }
    for (const answer of answers) expect([200, 412]).toContain(answer.status);
    const served = answers.filter((answer) => answer.status === 200);
    expect(answers.some((answer) => answer.status === 412)).toBe(true);

    // The logged cost of what was served is the settled spend; it passes the limit by at most one reservation.
    const maxReservation = Math.max(reservation(true), reservation(false));
    const spent = served.length * COST;
    expect(spent).toBeGreaterThanOrEqual(LIMIT - maxReservation);
    expect(spent).toBeLessThanOrEqual(LIMIT + maxReservation);
    for (const replica of replicas) {
      await expect.poll(async () => (await call(replica, "GET", `/v1/budgets/${created.body.id}`)).body.spent_usd).toBeCloseTo(spent, 9);
    }
    // Another end user is not held by alice's budget.
    const other = await call(replicas[1]!, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user", content: PROMPT }], user: "bob" },
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(other.status).toBe(200);
    // Both replicas' settled spend reaches the store under the budget's id.
    const { store } = replicas[0]!.gateway.deps;
    await expect
      .poll(async () => (await store.spend.current(new Date(Date.now() - 2 * 86_400_000).toISOString())).filter((row) => row.keyId === created.body.id).reduce((sum, row) => sum + row.spentUsd, 0))
      .toBeCloseTo(spent, 9);
  }, 60_000);
});
