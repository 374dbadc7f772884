import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { DEFAULT_WORKSPACE_ID, GATEWAY_ACTOR_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

/**
 * Experiments through the real gateway, aimock upstreams behind virtual keys: the resource and
 * its bad input, the sticky split and its logs, prompt variants, results read as traffic
 * arrives (an A/A run and a real difference, seeded), a guard that stops a failing treatment,
 * promotion, and the workspace boundary.
 */

let gateway: RunningGateway;
let control: LLMock;
let treatment: LLMock;
let hook: WebhookReceiver;
let controlKey: string;
let treatmentKey: string;

/** How each upstream answers: a failure rate by a seeded sequence, or failing from its `failFrom`-th request on. */
const behaviour = { control: { failRate: 0, failFrom: Infinity, served: 0, failed: 0 }, treatment: { failRate: 0, failFrom: Infinity, served: 0, failed: 0 } };

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const randomOf = { control: seeded(101), treatment: seeded(202) };

function answering(name: "control" | "treatment", upstream: LLMock): void {
  upstream.onMessage(/.*/, () => {
    const state = behaviour[name];
    state.served += 1;
    const fails = state.served >= state.failFrom || randomOf[name]() < state.failRate;
    if (fails) {
      state.failed += 1;
      return { error: { message: `${name} is down`, type: "server_error" }, status: 500 };
    }
    return { content: `from ${name}` };
  });
}

function resetUpstreams(failRates: { control?: number; treatment?: number } = {}, treatmentFailFrom = Infinity): void {
  behaviour.control = { failRate: failRates.control ?? 0, failFrom: Infinity, served: 0, failed: 0 };
  behaviour.treatment = { failRate: failRates.treatment ?? 0, failFrom: treatmentFailFrom, served: 0, failed: 0 };
}

beforeAll(async () => {
  control = await startUpstream();
  treatment = await startUpstream();
  answering("control", control);
  answering("treatment", treatment);
  hook = await startWebhookReceiver();
  gateway = await startGateway({ GATEWAY_EXPERIMENT_GUARD_MIN_INTERVAL_MS: 0, GATEWAY_WEBHOOK_POLL_INTERVAL_MS: 20 });
  const key = async (name: string, upstream: LLMock) => {
    const created = await call(gateway, "POST", "/v1/virtual-keys", { body: { name, provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.slug as string;
  };
  controlKey = await key("control upstream", control);
  treatmentKey = await key("treatment upstream", treatment);
  const webhook = await call(gateway, "POST", "/v1/webhooks", { body: { url: hook.url, events: ["experiment.stopped"] } });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
  hook.setSecret(webhook.body.secret);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await control?.stop();
  await treatment?.stop();
  await hook?.close();
});

function expectContract(operationId: string, response: { status: number; body: unknown }): void {
  expect(gatewayContractProblems(operationId, response.status, response.body), operationId).toEqual([]);
}

function expectBadRequest(response: { status: number; body: any }, param: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error).toMatchObject({ param, type: "invalid_request_error" });
}

/** An experiment between the two upstreams (control first), with its config; started unless told otherwise. */
async function experiment(body: Record<string, unknown> = {}, start = true): Promise<{ id: string; config: string }> {
  const created = await call(gateway, "POST", "/v1/experiments", {
    body: { name: "upstreams", variants: [{ name: "control", weight: 1, virtual_key: controlKey }, { name: "treatment", weight: 1, virtual_key: treatmentKey }], ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expectContract("createExperiment", created);
  const config = await call(gateway, "POST", "/v1/configs", { body: { name: "experiment config", config: { virtual_key: controlKey, experiment: created.body.id } } });
  expect(config.status, JSON.stringify(config.body)).toBe(201);
  if (start) {
    const started = await call(gateway, "PATCH", `/v1/experiments/${created.body.id}`, { body: { status: "running" } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: "running", started_at: expect.any(String) });
  }
  return { id: created.body.id, config: config.body.slug };
}

const chat = (config: string, user: string, extra: Record<string, string> = {}) =>
  call(gateway, "POST", "/v1/chat/completions", {
    body: { model: "gpt-4o-mini", user, messages: [{ role: "user", content: "hello" }] },
    headers: { "x-gateway-config": config, ...extra },
  });

async function results(id: string): Promise<any> {
  await gateway.flushLogs();
  const response = await call(gateway, "GET", `/v1/experiments/${id}/results`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expectContract("getExperimentResults", response);
  return response.body;
}

const metric = (body: any, name: string) => body.comparisons[0].metrics.find((entry: { metric: string }) => entry.metric === name);

describe("experiments", () => {
  it("split requests by a sticky hash of the end user, log the variant, and filter logs and analytics by it", async () => {
    resetUpstreams();
    const { id, config } = await experiment();
    const served = new Map<string, string>();
    for (let i = 0; i < 60; i++) {
      const user = `sticky-${i % 20}`;
      const answer = await chat(config, user);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const from = answer.body.choices[0].message.content as string;
      // A user stays with one variant for the experiment's life.
      if (served.has(user)) expect(from).toBe(served.get(user));
      served.set(user, from);
    }
    const split = [...served.values()];
    expect(split.filter((from) => from === "from treatment").length).toBeGreaterThan(3);
    expect(split.filter((from) => from === "from control").length).toBeGreaterThan(3);

    await gateway.flushLogs();
    const listed = await call(gateway, "GET", `/v1/logs?experiment_id=${id}&experiment_variant=treatment&limit=200`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBe(3 * split.filter((from) => from === "from treatment").length);
    expect(listed.body.data.every((log: any) => log.experiment_id === id && log.experiment_variant === "treatment" && log.virtual_key_id !== null)).toBe(true);
    const grouped = await call(gateway, "GET", `/v1/analytics/groups?by=experiment_variant&experiment_id=${id}`);
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(200);
    expect(Object.fromEntries(grouped.body.data.map((group: any) => [group.key, group.requests]))).toEqual({
      control: 3 * split.filter((from) => from === "from control").length,
      treatment: 3 * split.filter((from) => from === "from treatment").length,
    });
    const body = await results(id);
    expect(body.variants.map((variant: any) => [variant.variant, variant.requests])).toEqual([
      ["control", 3 * split.filter((from) => from === "from control").length],
      ["treatment", 3 * split.filter((from) => from === "from treatment").length],
    ]);

    const running = await call(gateway, "GET", "/v1/experiments?status=running");
    expectContract("listExperiments", running);
    expect(running.body.data.map((listed: { id: string }) => listed.id)).toContain(id);
    expectContract("getExperiment", await call(gateway, "GET", `/v1/experiments/${id}`));

    // A request of the config outside a running experiment is not logged with it.
    const stopped = await call(gateway, "PATCH", `/v1/experiments/${id}`, { body: { status: "stopped" } });
    expectContract("updateExperiment", stopped);
    expect(stopped.body).toMatchObject({ status: "stopped", stopped_at: expect.any(String), stop_reason: { kind: "manual" } });
    expect((await call(gateway, "GET", "/v1/experiments?status=running")).body.data.map((listed: { id: string }) => listed.id)).not.toContain(id);
    const after = await chat(config, "sticky-1");
    expect(after.body.choices[0].message.content).toBe("from control");
    await gateway.flushLogs();
    const log = await call(gateway, "GET", `/v1/logs/${after.headers.get("x-gateway-log-id")}`);
    expect(log.body).toMatchObject({ experiment_id: null, experiment_variant: null });
  });

  it("lets a prompt experiment choose the version of runs that name none", async () => {
    resetUpstreams();
    const prompt = await call(gateway, "POST", "/v1/prompts", { body: { name: "greeter", model: "gpt-4o-mini", virtual_key: controlKey, messages: [{ role: "system", content: "v1" }, { role: "user", content: "{{q}}" }] } });
    const promptId = prompt.body.id as string;
    await call(gateway, "PUT", `/v1/prompts/${promptId}`, { body: { messages: [{ role: "system", content: "v2" }, { role: "user", content: "{{q}}" }] } });
    await call(gateway, "PUT", `/v1/prompts/${promptId}/labels/candidate`, { body: { version: 2 } });
    const created = await call(gateway, "POST", "/v1/experiments", {
      body: { name: "prompt v2", prompt_id: promptId, assignment: "request", variants: [{ name: "production", weight: 1, prompt_label: "production" }, { name: "candidate", weight: 1, prompt_label: "candidate" }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const config = await call(gateway, "POST", "/v1/configs", { body: { name: "prompt experiment", config: { experiment: created.body.id } } });
    await call(gateway, "PATCH", `/v1/experiments/${created.body.id}`, { body: { status: "running" } });
    const run = (query = "") => call(gateway, "POST", `/v1/prompts/${promptId}/completions${query}`, { body: { variables: { q: "hi" } }, headers: { "x-gateway-config": config.body.slug } });
    const logIds: string[] = [];
    for (let i = 0; i < 30; i++) logIds.push((await run()).headers.get("x-gateway-log-id")!);
    const pinned = await run("?version=1");
    await gateway.flushLogs();
    const logs = await Promise.all(logIds.map(async (logId) => (await call(gateway, "GET", `/v1/logs/${logId}`)).body));
    for (const log of logs) expect(log.prompt_version).toBe(log.experiment_variant === "candidate" ? 2 : 1);
    expect(new Set(logs.map((log) => log.experiment_variant))).toEqual(new Set(["production", "candidate"]));
    // A run that names its version is outside the experiment.
    expect((await call(gateway, "GET", `/v1/logs/${pinned.headers.get("x-gateway-log-id")}`)).body).toMatchObject({ prompt_version: 1, experiment_id: null });
    // The label a running experiment runs cannot be taken off.
    expectBadRequest(await call(gateway, "DELETE", `/v1/prompts/${promptId}/labels/candidate`), "label");

    // Promoting the candidate publishes its version.
    const promoted = await call(gateway, "POST", `/v1/experiments/${created.body.id}/promote`, { body: { variant: "candidate" } });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expectContract("promoteExperimentVariant", promoted);
    expect(promoted.body).toMatchObject({ status: "concluded", promoted_variant: "candidate", concluded_at: expect.any(String) });
    expect((await call(gateway, "GET", `/v1/prompts/${promptId}`)).body).toMatchObject({ default_version: 2, labels: { production: 2 } });
    const concluded = await run();
    await gateway.flushLogs();
    expect((await call(gateway, "GET", `/v1/logs/${concluded.headers.get("x-gateway-log-id")}`)).body).toMatchObject({ prompt_version: 2, experiment_id: null });
  });

  it("promoting a model and parameters writes them into the configs that name the experiment", async () => {
    resetUpstreams();
    const created = await call(gateway, "POST", "/v1/experiments", {
      body: { name: "bigger model", assignment: "request", variants: [{ name: "control", weight: 1 }, { name: "bigger", weight: 1, model: "gpt-4o", params: { temperature: 0.3 }, virtual_key: treatmentKey }] },
    });
    const config = await call(gateway, "POST", "/v1/configs", {
      body: { name: "promoted", config: { virtual_key: controlKey, override_params: { max_tokens: 50, temperature: 1 }, experiment: created.body.id } },
    });
    await call(gateway, "PATCH", `/v1/experiments/${created.body.id}`, { body: { status: "running" } });
    // While it runs, a request of the variant is the config as the variant changes it.
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const answer = await chat(config.body.slug, `promote-${i}`);
      await gateway.flushLogs();
      const logged = (await call(gateway, "GET", `/v1/logs/${answer.headers.get("x-gateway-log-id")}`)).body;
      seen.add(logged.experiment_variant);
      const bigger = logged.experiment_variant === "bigger";
      const upstream = bigger ? treatment : control;
      expect(answer.body.choices[0].message.content).toBe(bigger ? "from treatment" : "from control");
      expect(logged.model).toBe(bigger ? "gpt-4o" : "gpt-4o-mini");
      // The variant's params win over the config's; the config's other overrides stay.
      expect(upstream.getRequests().at(-1)?.body).toMatchObject({ model: bigger ? "gpt-4o" : "gpt-4o-mini", temperature: bigger ? 0.3 : 1, max_tokens: 50 });
    }
    expect(seen).toEqual(new Set(["control", "bigger"]));
    const promoted = await call(gateway, "POST", `/v1/experiments/${created.body.id}/promote`, { body: { variant: "bigger" } });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    const written = await call(gateway, "GET", `/v1/configs/${config.body.slug}`);
    expect(JSON.parse(written.body.config)).toEqual({ virtual_key: treatmentKey, override_params: { max_tokens: 50, temperature: 0.3, model: "gpt-4o" } });
    const events = await call(gateway, "GET", `/v1/audit-events?resource_id=${created.body.id}`);
    expect(events.body.data.map((event: any) => event.action)).toEqual(["experiment.promoted", "experiment.started", "experiment.created"]);
  });

  it("refuses bad input with a 400 naming the field", async () => {
    const variants = (extra: Record<string, unknown>) => [{ name: "control", weight: 1 }, { name: "treatment", weight: 1, ...extra }];
    const create = (body: Record<string, unknown>) => call(gateway, "POST", "/v1/experiments", { body: { name: "bad", variants: variants({}), ...body } });
    expectBadRequest(await create({ variants: [{ name: "a", weight: 0 }, { name: "b", weight: 0 }] }), "variants");
    expectBadRequest(await create({ variants: [{ name: "a", weight: -1 }, { name: "b", weight: 1 }] }), "variants.0.weight");
    expectBadRequest(await create({ variants: [{ name: "a", weight: 1 }] }), "variants");
    expectBadRequest(await create({ variants: [{ name: "a", weight: 1 }, { name: "a", weight: 1 }] }), "variants.1.name");
    expectBadRequest(await create({ variants: variants({ virtual_key: "vk-nowhere" }) }), "variants.1.virtual_key");
    expectBadRequest(await create({ variants: variants({ provider: "nowhere" }) }), "variants.1.provider");
    expectBadRequest(await create({ variants: variants({ provider: "openai", virtual_key: controlKey }) }), "variants.1.virtual_key");
    expectBadRequest(await create({ variants: variants({ params: { model: "x" } }) }), "variants.1.params.model");
    expectBadRequest(await create({ variants: variants({ params: { temperature: 9 } }) }), "variants.1.params.temperature");
    expectBadRequest(await create({ variants: variants({ prompt_version: 2 }) }), "variants.1.prompt_version");
    expectBadRequest(await create({ prompt_id: "00000000-0000-4000-8000-00000000abcd" }), "prompt_id");
    const prompt = await call(gateway, "POST", "/v1/prompts", { body: { name: "one version", model: "m", provider: "openai", messages: [{ role: "user", content: "x" }] } });
    expectBadRequest(await create({ prompt_id: prompt.body.id, variants: variants({ prompt_version: 7 }) }), "variants.1.prompt_version");
    expectBadRequest(await create({ prompt_id: prompt.body.id, variants: variants({ prompt_label: "staging" }) }), "variants.1.prompt_label");
    expectBadRequest(await create({ guards: [{ metric: "error_rate", tolerance: 0 }] }), "guards.0.tolerance");
    expectBadRequest(await create({ guards: [{ metric: "latency", tolerance: 0.1 }, { metric: "latency", tolerance: 0.2 }] }), "guards.1.metric");
    expectBadRequest(await create({ assignment: "cookie" }), "assignment");
    expectBadRequest(await call(gateway, "POST", "/v1/configs", { body: { name: "x", config: { experiment: "00000000-0000-4000-8000-00000000abcd" } } }), "config.experiment");

    const { id } = await experiment();
    expectBadRequest(await call(gateway, "PATCH", `/v1/experiments/${id}`, { body: { variants: variants({}) } }), "variants");
    expectBadRequest(await call(gateway, "PATCH", `/v1/experiments/${id}`, { body: { assignment: "trace" } }), "assignment");
    expectBadRequest(await call(gateway, "DELETE", `/v1/experiments/${id}`), "id");
    expectBadRequest(await call(gateway, "POST", `/v1/experiments/${id}/promote`, { body: { variant: "nobody" } }), "variant");
    // Guards and names change under way.
    const guarded = await call(gateway, "PATCH", `/v1/experiments/${id}`, { body: { name: "renamed", guards: [{ metric: "cost_per_request", tolerance: 0.01 }] } });
    expect(guarded.status, JSON.stringify(guarded.body)).toBe(200);
    expect(guarded.body).toMatchObject({ name: "renamed", status: "running", guards: [{ metric: "cost_per_request", tolerance: 0.01 }] });
    expect((await call(gateway, "GET", `/v1/experiments/${crypto.randomUUID()}`)).status).toBe(404);
    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "service", role: "service" } });
    expect((await call(gateway, "PATCH", `/v1/experiments/${id}`, { body: { status: "stopped" }, key: service.body.key })).status).toBe(403);
    expect((await call(gateway, "GET", `/v1/experiments/${id}/results`, { key: service.body.key })).status).toBe(200);
  });

  it("never lets an experiment reach another workspace's resources", async () => {
    const { id } = await experiment();
    const other = crypto.randomUUID();
    const admin = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other workspace", role: "admin", workspace_id: other } });
    expect(admin.status, JSON.stringify(admin.body)).toBe(201);
    const theirs = admin.body.key as string;
    // Its own experiment cannot name this workspace's virtual key.
    const refused = await call(gateway, "POST", "/v1/experiments", { key: theirs, body: { name: "borrow", variants: [{ name: "a", weight: 1 }, { name: "b", weight: 1, virtual_key: treatmentKey }] } });
    expectBadRequest(refused, "variants.1.virtual_key");
    // Its configs cannot join this workspace's experiment, stored or inline.
    expectBadRequest(await call(gateway, "POST", "/v1/configs", { key: theirs, body: { name: "borrow", config: { experiment: id } } }), "config.experiment");
    const inline = await call(gateway, "POST", "/v1/chat/completions", {
      key: theirs,
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      headers: { "x-gateway-config": JSON.stringify({ provider: "openai", experiment: id }), authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expectBadRequest(inline, "x-gateway-config");
    expect((await call(gateway, "GET", `/v1/experiments/${id}`, { key: theirs })).status).toBe(404);
    expect((await call(gateway, "GET", `/v1/experiments/${id}/results`, { key: theirs })).status).toBe(404);
    expect(DEFAULT_WORKSPACE_ID).not.toBe(other);
  });
});

describe("results as traffic arrives", () => {
  /** Sends `requests` requests (a user each), reading the results every 50; resolves to every look's verdicts per metric. */
  async function readEvery50(id: string, config: string, requests: number, feedbackSeed: number, goodFeedback: { control: number; treatment: number }) {
    const random = seeded(feedbackSeed);
    const looks: Array<Record<string, string>> = [];
    for (let i = 1; i <= requests; i++) {
      const answer = await chat(config, `user-${feedbackSeed}-${i}`);
      if (answer.status === 200 && random() < 0.5) {
        const served = (answer.body.choices[0].message.content as string).replace("from ", "") as "control" | "treatment";
        const value = random() < goodFeedback[served] ? 1 : -1;
        const feedback = await call(gateway, "POST", "/v1/feedback", { body: { trace_id: answer.headers.get("x-gateway-trace-id"), value } });
        expect(feedback.status, JSON.stringify(feedback.body)).toBe(201);
      }
      if (i % 50 === 0) {
        const body = await results(id);
        looks.push(Object.fromEntries(body.comparisons[0].metrics.map((entry: any) => [entry.metric, entry.verdict])));
      }
    }
    return looks;
  }

  it("an A/A experiment read every 50 requests declares no winner on errors or feedback (seeded; latency is the machine's own)", async () => {
    resetUpstreams({ control: 0.05, treatment: 0.05 });
    const { id, config } = await experiment({ variants: [{ name: "a", weight: 1, virtual_key: controlKey }, { name: "b", weight: 1, virtual_key: treatmentKey }] });
    const looks = await readEvery50(id, config, 400, 31, { control: 0.7, treatment: 0.7 });
    expect(looks).toHaveLength(8);
    for (const look of looks) {
      expect(["inconclusive", "insufficient_data"]).toContain(look.error_rate);
      expect(["inconclusive", "insufficient_data"]).toContain(look.feedback_score);
    }
    const body = await results(id);
    expect(body.variants.reduce((sum: number, variant: any) => sum + variant.requests, 0)).toBe(400);
    expect(body.variants.reduce((sum: number, variant: any) => sum + variant.errors, 0)).toBe(behaviour.control.failed + behaviour.treatment.failed);
    expect(body.variants.every((variant: any) => variant.feedback.count > 50)).toBe(true);
  });

  it("an error rate of 30 % against 5 % is found worse within 400 requests, and stays so", async () => {
    resetUpstreams({ control: 0.05, treatment: 0.3 });
    const { id, config } = await experiment();
    const looks = await readEvery50(id, config, 400, 32, { control: 0.7, treatment: 0.7 });
    expect(looks.at(-1)!.error_rate).toBe("worse");
    const first = looks.findIndex((look) => look.error_rate === "worse");
    expect(looks.slice(first).every((look) => look.error_rate === "worse")).toBe(true);
    const body = await results(id);
    const errorRate = metric(body, "error_rate");
    expect(errorRate.low).toBeGreaterThan(0);
    expect(errorRate.p_value).toBeLessThan(0.05);
    expect(body.variants[1].error_rate.value).toBeGreaterThan(body.variants[0].error_rate.value);
  });
});

describe("guards", () => {
  it("a treatment whose upstream starts failing stops the experiment within 30 of its failures; every later request goes to the control", async () => {
    resetUpstreams({}, 40);
    const { id, config } = await experiment({ assignment: "request", guards: [{ metric: "error_rate", tolerance: 0.05 }] });
    let sent = 0;
    let status = "running";
    // Each request's log is stored and its guard checked before the next, so the count is the statistics', not the machine's speed.
    while (status === "running" && sent < 1_000) {
      await chat(config, `guarded-${sent}`);
      sent += 1;
      await gateway.flushLogs();
      await gateway.gateway.deps.experimentGuards.settled();
      status = (await call(gateway, "GET", `/v1/experiments/${id}`)).body.status;
    }
    expect(status).toBe("stopped");
    expect(behaviour.treatment.failed).toBeGreaterThanOrEqual(20);
    expect(behaviour.treatment.failed).toBeLessThanOrEqual(30);

    const stopped = (await call(gateway, "GET", `/v1/experiments/${id}`)).body;
    expect(stopped.stop_reason).toMatchObject({ kind: "guard", metric: "error_rate", variant: "treatment", tolerance: 0.05 });
    expect(stopped.stop_reason.low).toBeGreaterThan(0.05);
    expect(stopped.stop_reason.detail).toContain("error rate");
    expect((await results(id)).stop_reason).toEqual(stopped.stop_reason);

    const treatmentServed = behaviour.treatment.served;
    for (let i = 0; i < 40; i++) {
      const answer = await chat(config, `after-${i}`);
      expect(answer.status).toBe(200);
      expect(answer.body.choices[0].message.content).toBe("from control");
    }
    expect(behaviour.treatment.served).toBe(treatmentServed);

    const events = await call(gateway, "GET", `/v1/audit-events?resource_id=${id}`);
    const stop = events.body.data.find((event: any) => event.action === "experiment.stopped");
    expect(stop).toMatchObject({ actor_key_id: GATEWAY_ACTOR_ID, before: { status: "running" }, after: { status: "stopped", stop_reason: { kind: "guard" } } });
    const deadline = Date.now() + 10_000;
    while (hook.verified("experiment.stopped").filter((received) => received.event.data.experiment_id === id).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const delivered = hook.verified("experiment.stopped").filter((received) => received.event.data.experiment_id === id);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.event.data).toMatchObject({ control: "control", reason: { kind: "guard", metric: "error_rate", variant: "treatment" } });
  });
});
