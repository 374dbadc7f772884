import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startOwnRedis, type OwnRedis } from "./support/own-redis.ts";

/**
 * Two replicas on one PostgreSQL and a Redis of the test's own, their control-plane caches kept
 * ten minutes: an experiment's split is the same on both (a hash, no shared state), and a stop or
 * a label move made through one is what the other serves from its next request.
 */

let database: TestDatabase;
let redis: OwnRedis;
let control: LLMock;
let treatment: LLMock;
let failing: LLMock;
let replicas: RunningGateway[] = [];

beforeAll(async () => {
  database = await postgresTestUrl();
  redis = await startOwnRedis();
  control = await startUpstream();
  treatment = await startUpstream();
  control.onMessage(/.*/, { content: "from control" });
  treatment.onMessage(/.*/, { content: "from treatment" });
  failing = await startUpstream();
  failing.onMessage(/.*/, { error: { message: "down", type: "server_error" }, status: 500 });
  const config = {
    GATEWAY_DATABASE_URL: database.url,
    GATEWAY_REDIS_URL: redis.url,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_ADMIN_KEY: `experiment-replicas-${randomBytes(8).toString("hex")}`,
    GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: 600_000,
    // Guards are checked when the test says (the timer's pass), and once as logs first arrive.
    GATEWAY_EXPERIMENT_GUARD_INTERVAL_MS: 86_400_000,
    GATEWAY_EXPERIMENT_GUARD_MIN_INTERVAL_MS: 86_400_000,
  };
  replicas = [await startGateway(config), await startGateway(config)];
}, 60_000);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await redis?.stop();
  await control?.stop();
  await treatment?.stop();
  await failing?.stop();
  await database?.cleanup();
});

/** Reads until `done` holds or two seconds pass: a change travels through Redis, not at once. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("experiments across two replicas", () => {
  it("assign a user to one variant on both, and a stop made on one sends the other's next requests to the control", async () => {
    const [one, two] = replicas as [RunningGateway, RunningGateway];
    const key = async (name: string, upstream: LLMock) =>
      (await call(one, "POST", "/v1/virtual-keys", { body: { name, provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` } })).body.slug as string;
    const controlKey = await key("control", control);
    const treatmentKey = await key("treatment", treatment);
    const experiment = await call(one, "POST", "/v1/experiments", {
      body: { name: "replicated", variants: [{ name: "control", weight: 1, virtual_key: controlKey }, { name: "treatment", weight: 1, virtual_key: treatmentKey }] },
    });
    expect(experiment.status, JSON.stringify(experiment.body)).toBe(201);
    const config = await call(one, "POST", "/v1/configs", { body: { name: "replicated", config: { virtual_key: controlKey, experiment: experiment.body.id } } });
    expect((await call(one, "PATCH", `/v1/experiments/${experiment.body.id}`, { body: { status: "running" } })).status).toBe(200);

    const chat = (replica: RunningGateway, user: string) =>
      call(replica, "POST", "/v1/chat/completions", { body: { model: "gpt-4o-mini", user, messages: [{ role: "user", content: "hi" }] }, headers: { "x-gateway-config": config.body.slug } });
    const served: string[] = [];
    for (let user = 0; user < 40; user++) {
      const answers = [];
      for (const replica of [one, two, two, one]) answers.push((await chat(replica, `user-${user}`)).body.choices[0].message.content);
      expect(new Set(answers).size, `user-${user}: ${answers.join(", ")}`).toBe(1);
      served.push(answers[0]);
    }
    expect(served.filter((from) => from === "from treatment").length).toBeGreaterThan(8);
    expect(served.filter((from) => from === "from control").length).toBeGreaterThan(8);

    // Replica two holds the running experiment in its cache; the stop is made through replica one.
    const treated = served.findIndex((from) => from === "from treatment");
    expect((await call(one, "PATCH", `/v1/experiments/${experiment.body.id}`, { body: { status: "stopped" } })).status).toBe(200);
    const after = await until(
      async () => (await chat(two, `user-${treated}`)).body.choices[0].message.content,
      (from) => from === "from control",
    );
    expect(after).toBe("from control");
  });

  it("a label moved through one replica is the version the other runs next", async () => {
    const [one, two] = replicas as [RunningGateway, RunningGateway];
    const key = (await call(one, "POST", "/v1/virtual-keys", { body: { name: "prompt", provider: "openai", key: UPSTREAM_KEY, custom_host: `${control.url}/v1` } })).body.slug;
    const prompt = await call(one, "POST", "/v1/prompts", { body: { name: "moved", model: "gpt-4o-mini", virtual_key: key, messages: [{ role: "user", content: "one" }] } });
    await call(one, "PUT", `/v1/prompts/${prompt.body.id}`, { body: { messages: [{ role: "user", content: "two" }] } });
    const rendered = async () => (await call(two, "POST", `/v1/prompts/${prompt.body.id}/render?label=staging`, { body: { variables: {} } })).body;
    const run = async () => (await call(two, "POST", `/v1/prompts/${prompt.body.id}/render`, { body: { variables: {} } })).body.version as number;
    expect(await run()).toBe(1);
    expect((await rendered()).error).toMatchObject({ param: "label" });
    expect((await call(one, "PUT", `/v1/prompts/${prompt.body.id}/labels/production`, { body: { version: 2 } })).status).toBe(200);
    expect((await call(one, "PUT", `/v1/prompts/${prompt.body.id}/labels/staging`, { body: { version: 1 } })).status).toBe(200);
    expect(await until(run, (version) => version === 2)).toBe(2);
    expect((await until(rendered, (body) => body.version === 1)).version).toBe(1);
  });

  it("a guard crossed on the logs one replica served is found by the other's pass, and stops both", async () => {
    const [one, two] = replicas as [RunningGateway, RunningGateway];
    const key = async (name: string, upstream: LLMock) =>
      (await call(one, "POST", "/v1/virtual-keys", { body: { name, provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` } })).body.slug as string;
    const controlKey = await key("guarded control", control);
    const failingKey = await key("guarded failing", failing);
    const experiment = await call(one, "POST", "/v1/experiments", {
      body: {
        name: "guarded",
        assignment: "request",
        variants: [{ name: "control", weight: 1, virtual_key: controlKey }, { name: "broken", weight: 1, virtual_key: failingKey }],
        guards: [{ metric: "error_rate", tolerance: 0.1 }],
      },
    });
    const config = await call(one, "POST", "/v1/configs", { body: { name: "guarded", config: { virtual_key: controlKey, experiment: experiment.body.id } } });
    await call(one, "PATCH", `/v1/experiments/${experiment.body.id}`, { body: { status: "running" } });
    const chat = (replica: RunningGateway) =>
      call(replica, "POST", "/v1/chat/completions", { body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, headers: { "x-gateway-config": config.body.slug } });
    // Replica one checks the guards once as its first logs arrive, then not again for a day.
    const statuses: number[] = [(await chat(one)).status];
    await one.flushLogs();
    await one.gateway.deps.experimentGuards.settled();
    for (let i = 1; i < 120; i++) statuses.push((await chat(one)).status);
    expect(statuses.filter((status) => status === 500).length).toBeGreaterThan(30);
    await one.flushLogs();
    await one.gateway.deps.experimentGuards.settled();

    await two.gateway.deps.experimentGuards.checkRunning();
    const stopped = (await call(two, "GET", `/v1/experiments/${experiment.body.id}`)).body;
    expect(stopped).toMatchObject({ status: "stopped", stop_reason: { kind: "guard", metric: "error_rate", variant: "broken" } });
    // Replica one learns of it through Redis: its requests all go to the control from then on.
    const first = await until(async () => (await chat(one)).status, (status) => status === 200);
    expect(first).toBe(200);
    for (let i = 0; i < 20; i++) expect((await chat(one)).body.choices[0].message.content).toBe("from control");
  });
});
