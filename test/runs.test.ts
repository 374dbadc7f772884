import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startOwnRedis, type OwnRedis } from "./support/own-redis.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

/**
 * The breaker of agent runs through the real gateway: an agent loop that repeats one request (and
 * one MCP tool call) halted at its repeat limit with a 423 the official SDKs do not retry, the
 * refusal logged and sent as `run.halted`, resumed by an admin; requests, cost, duration and
 * spend-velocity rules; limits from a gateway key and from a config; two replicas sharing a
 * Redis of the test's own halting one run at one count.
 */

let upstream: LLMock;
const gateways: RunningGateway[] = [];
const receivers: WebhookReceiver[] = [];
let redis: OwnRedis;
let database: TestDatabase;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("agent step", { content: "thinking", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  redis = await startOwnRedis();
  database = await postgresTestUrl();
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  for (const receiver of receivers) await receiver.close();
  await redis?.stop();
  await upstream?.stop();
  await database?.cleanup();
});

/** gpt-4o: 20 tokens in at $2.50, 50 out at $10 per million. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;

async function gatewayWith(overrides: Parameters<typeof startGateway>[0] = {}): Promise<RunningGateway> {
  const gateway = await startGateway({ GATEWAY_WEBHOOK_POLL_INTERVAL_MS: 20, ...overrides });
  gateways.push(gateway);
  return gateway;
}

/** A service key with run limits, for the agent. */
async function agentKey(gateway: RunningGateway, runLimits: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "agent", role: "service", run_limits: runLimits } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** The official client as an agent sends it: its key, a trace id per run, and the SDK's own retries on. */
function agent(gateway: RunningGateway, key: string, traceId: string | null, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 2,
    defaultHeaders: {
      "x-gateway-api-key": key,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": `${upstream.url}/v1`,
      ...(traceId && { "x-gateway-trace-id": traceId }),
      ...headers,
    },
  });
}

const STEP = { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user" as const, content: "agent step" }] };

async function status(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

describe("the run breaker", () => {
  it("halts an agent loop that repeats one request at its repeat limit: a 423 not retried, logged, sent as run.halted, resumed by an admin", async () => {
    const gateway = await gatewayWith();
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    const created = await call(gateway, "POST", "/v1/webhooks", { body: { url: hook.url, events: ["run.halted"] } });
    hook.setSecret(created.body.secret);
    const key = await agentKey(gateway, { repeat_limit: 3 });
    const trace = `loop-${randomBytes(4).toString("hex")}`;
    const client = agent(gateway, key.key, trace);
    const upstreamCalls = () => upstream.getRequests().filter((request) => JSON.stringify(request.body ?? "").includes("agent step")).length;
    const before = upstreamCalls();
    // The same request three times (one of them streamed: the same request all the same).
    await client.chat.completions.create(STEP);
    for await (const _ of await client.chat.completions.create({ ...STEP, stream: true, stream_options: { include_usage: true } })) void _;
    await client.chat.completions.create(STEP);
    const refused = await client.chat.completions.create(STEP).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    const error = refused as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(423);
    expect(error.headers?.get("x-should-retry")).toBe("false");
    expect((error.error as { code?: string }).code).toBe("run_halted");
    expect(error.message).toContain("repeat_limit");
    expect(error.message).toContain("the same call sent 4 times, at most 3");
    expect(error.message).toContain(`POST /v1/runs/${trace}/resume`);
    // Three calls reached the upstream; the refused one never did.
    expect(upstreamCalls() - before).toBe(3);
    // A different request of the halted run is refused too; another run is not.
    expect(await status(client.chat.completions.create({ ...STEP, temperature: 0.2 }))).toBe(423);
    expect(await status(agent(gateway, key.key, `${trace}-other`).chat.completions.create(STEP))).toBe(200);

    // The refusals are in the log, in the trace: one each, as the SDK (two retries allowed) sent each once.
    await gateway.flushLogs();
    const logs = await call(gateway, "GET", `/v1/logs?trace_id=${trace}`);
    expect(logs.body.data.filter((record: any) => record.status === 423).map((record: any) => record.error?.code)).toEqual(["run_halted", "run_halted"]);
    const run = await call(gateway, "GET", `/v1/runs/${trace}`, { key: key.key });
    expect(run.body).toMatchObject({ object: "run", trace_id: trace, requests: 3, cost_usd: expect.closeTo(3 * COST, 12), halted: { rule: "repeat_limit", value: 4, limit: 3, scope: "run" } });

    // One run.halted event, signed.
    await expect.poll(() => hook.verified("run.halted").length).toBe(1);
    expect(hook.received[0]!.event.data).toMatchObject({ trace_id: trace, api_key_id: key.id, rule: "repeat_limit", value: 4, limit: 3, scope: "run" });

    // Only an admin resumes it; then the run goes on, counted afresh.
    expect((await call(gateway, "POST", `/v1/runs/${trace}/resume`, { key: key.key })).status).toBe(403);
    const resumed = await call(gateway, "POST", `/v1/runs/${trace}/resume`);
    expect(resumed.body).toMatchObject({ trace_id: trace, requests: 0, halted: null });
    expect(await status(client.chat.completions.create(STEP))).toBe(200);
    const audit = await call(gateway, "GET", "/v1/audit-events?resource_type=run");
    expect(audit.body.data[0]).toMatchObject({ action: "run.resumed", resource_id: trace, before: { halted: { rule: "repeat_limit" } }, after: { halted: null } });
    expect(hook.received).toHaveLength(1);
  });

  it("the Anthropic SDK does not retry the refusal either", async () => {
    const gateway = await gatewayWith();
    const key = await agentKey(gateway, { max_requests: 1 });
    const trace = `anthropic-${randomBytes(4).toString("hex")}`;
    const client = new Anthropic({
      baseURL: gateway.url,
      apiKey: UPSTREAM_KEY,
      maxRetries: 2,
      defaultHeaders: { "x-gateway-api-key": key.key, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, "x-gateway-trace-id": trace },
    });
    const message = { model: "gpt-4o", max_tokens: 50, messages: [{ role: "user" as const, content: "agent step" }] };
    await client.messages.create(message);
    await gateway.flushLogs();
    const error = await client.messages.create(message).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(423);
    await gateway.flushLogs();
    const logs = await call(gateway, "GET", `/v1/logs?trace_id=${trace}`);
    // One refusal logged: no retry.
    expect(logs.body.data.filter((record: any) => record.status === 423)).toHaveLength(1);
  });

  it("halts an MCP agent loop that repeats one tool call with the same arguments, counted into the run of its model calls", async () => {
    const gateway = await gatewayWith();
    const key = await agentKey(gateway, { repeat_limit: 2, max_tool_calls: 10 });
    const trace = `tools-${randomBytes(4).toString("hex")}`;
    const runs = gateway.gateway.deps.runs;
    const limits = (await gateway.gateway.deps.keys.authenticate(key.key))!;
    const toolCall = (args: Record<string, unknown>) =>
      runs.countToolCall({ workspaceId: limits.workspaceId, traceId: trace, gatewayKeyId: key.id, endUser: null, limits: limits.runLimits, server: "docs", tool: "search", arguments: args });
    expect((await toolCall({ query: "x", page: 1 })).ok).toBe(true);
    // The same arguments in another key order: the same call.
    expect((await toolCall({ page: 1, query: "x" })).ok).toBe(true);
    expect((await toolCall({ query: "y", page: 1 })).ok).toBe(true);
    const refused = await toolCall({ query: "x", page: 1 });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error).toMatchObject({ code: "run_halted", status: 423 });
    expect(refused.error.message).toContain("the same call sent 3 times, at most 2");
    // The run's model calls are halted with it.
    expect(await status(agent(gateway, key.key, trace).chat.completions.create(STEP))).toBe(423);
    expect((await call(gateway, "GET", `/v1/runs/${trace}`)).body).toMatchObject({ tool_calls: 3, requests: 0, halted: { rule: "repeat_limit" } });
  });

  it("max_requests and max_cost_usd from a key, max_duration_seconds from an inline config, each halts its run", async () => {
    const gateway = await gatewayWith();
    const byRequests = await agentKey(gateway, { max_requests: 2 });
    const counted = agent(gateway, byRequests.key, "requests-run");
    expect([await status(counted.chat.completions.create(STEP)), await status(counted.chat.completions.create(STEP)), await status(counted.chat.completions.create(STEP))]).toEqual([200, 200, 423]);

    const byCost = await agentKey(gateway, { max_cost_usd: 1.5 * COST });
    const spending = agent(gateway, byCost.key, "cost-run");
    // The cost settles after each answer: two calls (1.0, then 2.0 ≥ 1.5), then refused.
    expect([await status(spending.chat.completions.create(STEP)), await status(spending.chat.completions.create(STEP)), await status(spending.chat.completions.create(STEP))]).toEqual([200, 200, 423]);
    expect((await call(gateway, "GET", "/v1/runs/cost-run")).body.halted).toMatchObject({ rule: "max_cost_usd", value: expect.closeTo(2 * COST, 12), limit: expect.closeTo(1.5 * COST, 12) });

    const plain = await call(gateway, "POST", "/v1/api-keys", { body: { name: "plain", role: "service" } });
    const timed = agent(gateway, plain.body.key, "timed-run", { "x-gateway-config": JSON.stringify({ run_limits: { max_duration_seconds: 1 } }) });
    expect(await status(timed.chat.completions.create(STEP))).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await status(timed.chat.completions.create(STEP))).toBe(423);
    expect((await call(gateway, "GET", "/v1/runs/timed-run")).body.halted).toMatchObject({ rule: "max_duration_seconds", limit: 1 });
    // Without a trace id there is no run: the config's run rules count nothing.
    const untraced = agent(gateway, plain.body.key, null, { "x-gateway-config": JSON.stringify({ run_limits: { max_requests: 1 } }) });
    expect([await status(untraced.chat.completions.create(STEP)), await status(untraced.chat.completions.create(STEP))]).toEqual([200, 200]);
  });

  it("a spend-velocity rule over the key catches a loop that varies its requests and its runs", async () => {
    const gateway = await gatewayWith();
    const key = await agentKey(gateway, { max_cost_usd_per_minute: 2.5 * COST, velocity_scope: "key" });
    const statuses: number[] = [];
    // Every request different, every one in a run of its own or none.
    for (let index = 0; index < 5; index++) {
      const client = agent(gateway, key.key, index % 2 === 0 ? `varied-${index}` : null);
      statuses.push(await status(client.chat.completions.create({ ...STEP, temperature: index / 10 })));
    }
    expect(statuses).toEqual([200, 200, 200, 423, 423]);
    // The run the trip caught is halted for good; the key's other requests until the minute's spend ages out.
    expect((await call(gateway, "GET", "/v1/runs/varied-4")).body.halted).toMatchObject({ rule: "max_cost_usd_per_minute", scope: "key", value: expect.closeTo(3 * COST, 12) });
    const other = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other", role: "service" } });
    expect(await status(agent(gateway, other.body.key, null).chat.completions.create(STEP))).toBe(200);
  });

  it("refuses a run limit of zero, and a velocity scope without its limit, with a 400 naming the field", async () => {
    const gateway = await gatewayWith();
    const refused = await call(gateway, "POST", "/v1/api-keys", { body: { name: "zero", role: "service", run_limits: { max_requests: 0 } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("run_limits.max_requests");
    const scope = await call(gateway, "POST", "/v1/api-keys", { body: { name: "scope", role: "service", run_limits: { velocity_scope: "user" } } });
    expect(scope.body.error.param).toBe("run_limits.velocity_scope");
    const config = await call(gateway, "POST", "/v1/configs", { body: { name: "zero", config: { run_limits: { repeat_limit: 0 } } } });
    expect(config.status).toBe(400);
    expect(config.body.error.param).toBe("config.run_limits.repeat_limit");
    const inline = await call(gateway, "POST", "/v1/chat/completions", {
      body: STEP,
      headers: { "x-gateway-config": JSON.stringify({ run_limits: { max_cost_usd: 0 } }), "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(inline.status).toBe(400);
    expect(inline.body.error.param).toMatch(/^x-gateway-config/);
    const updated = await call(gateway, "PATCH", `/v1/api-keys/${(await agentKey(gateway, { max_requests: 5 })).id}`, { body: { run_limits: { max_tool_calls: 0 } } });
    expect(updated.body.error.param).toBe("run_limits.max_tool_calls");
  });

  it("two replicas sharing a Redis halt one run at one count", async () => {
    const config = {
      GATEWAY_DATABASE_URL: database.url,
      GATEWAY_REDIS_URL: redis.url,
      GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      GATEWAY_ADMIN_KEY: `runs-admin-${randomBytes(8).toString("hex")}`,
    };
    const pair = [await gatewayWith(config), await gatewayWith(config)];
    const key = await agentKey(pair[0]!, { max_requests: 7 });
    const trace = `shared-${randomBytes(4).toString("hex")}`;
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, index) => status(agent(pair[index % 2]!, key.key, trace).chat.completions.create({ ...STEP, temperature: index / 100 }))));
    expect(statuses.filter((each) => each === 200)).toHaveLength(7);
    expect(statuses.filter((each) => each === 423)).toHaveLength(13);
    for (const replica of pair) expect((await call(replica, "GET", `/v1/runs/${trace}`)).body).toMatchObject({ requests: 7, halted: { rule: "max_requests", value: 8, limit: 7 } });
    // Resumed through one replica, the run goes on through the other.
    expect((await call(pair[0]!, "POST", `/v1/runs/${trace}/resume`)).status).toBe(200);
    expect(await status(agent(pair[1]!, key.key, trace).chat.completions.create(STEP))).toBe(200);
  }, 60_000);
});
