import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

/**
 * Webhooks through the real gateway: a budget's thresholds crossed by real requests (the
 * official `openai` client, aimock upstream) reach a receiver in the test that checks each
 * signature, once per threshold; a receiver that fails is tried again with backoff; one that
 * hangs or answers 500 never slows a request; deliveries and their outcomes are readable; the
 * fields a webhook is refused for name themselves; its secret is shown once and sealed at rest.
 */

let upstream: LLMock;
const gateways: RunningGateway[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hooked", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  for (const receiver of receivers) await receiver.close();
  await upstream?.stop();
});

/** gpt-4o: 20 tokens in at $2.50, 50 out at $10 per million. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;

async function gatewayWith(overrides: Parameters<typeof startGateway>[0] = {}): Promise<RunningGateway> {
  const gateway = await startGateway({ GATEWAY_WEBHOOK_POLL_INTERVAL_MS: 50, GATEWAY_WEBHOOK_RETRY_BASE_MS: 100, ...overrides });
  gateways.push(gateway);
  return gateway;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

async function webhookFor(gateway: RunningGateway, hook: WebhookReceiver, events: string[] = ["budget.threshold_crossed"]): Promise<{ id: string; secret: string }> {
  const created = await call(gateway, "POST", "/v1/webhooks", { body: { url: hook.url, events, description: "test receiver" } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  hook.setSecret(created.body.secret);
  return created.body;
}

const chat = (gateway: RunningGateway, user = "alice") =>
  openaiClient(gateway, upstream).chat.completions.create({ model: "gpt-4o", max_tokens: 50, user, messages: [{ role: "user", content: "hooked" }] });

describe("webhooks", () => {
  it("sends one signed budget.threshold_crossed per threshold and period, and lists its deliveries", async () => {
    const gateway = await gatewayWith();
    const hook = await receiver();
    const webhook = await webhookFor(gateway, hook);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const budget = await call(gateway, "POST", "/v1/budgets", {
      body: { name: "alice", scope: { type: "user", user: "alice" }, limit_usd: 4 * COST, alert_thresholds: [0.5, 1], period: { type: "calendar", unit: "month", time_zone: "Europe/Berlin" } },
    });
    expect(budget.status).toBe(201);
    // 1/4, 2/4 (crosses 0.5), 3/4, 4/4 (crosses 1), then refused: two events.
    for (let index = 0; index < 4; index++) await chat(gateway);
    await expect(chat(gateway)).rejects.toMatchObject({ status: 412 });
    await expect.poll(() => hook.verified("budget.threshold_crossed").length).toBe(2);
    // Nothing more comes: each threshold once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(2);
    expect(hook.received.every((entry) => entry.verified)).toBe(true);
    const events = hook.received.map((entry) => entry.event).sort((a, b) => a.data.threshold - b.data.threshold);
    expect(events[0]).toMatchObject({
      type: "budget.threshold_crossed",
      workspace_id: expect.any(String),
      data: {
        budget: { id: budget.body.id, name: "alice", scope: { type: "user", user: "alice" }, period: { type: "calendar", unit: "month", time_zone: "Europe/Berlin" } },
        member: null,
        threshold: 0.5,
        spent_usd: expect.closeTo(2 * COST, 12),
        limit_usd: expect.closeTo(4 * COST, 12),
        period: { start: budget.body.period_start, end: budget.body.period_end },
      },
    });
    expect(events[1]!.data.threshold).toBe(1);
    const first = hook.received[0]!;
    expect(first.headers["content-type"]).toBe("application/json");
    expect(first.headers["x-gateway-event-type"]).toBe("budget.threshold_crossed");
    expect(first.headers["x-gateway-event-id"]).toBe(first.event.id);
    expect(first.headers["x-gateway-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const deliveries = await call(gateway, "GET", `/v1/webhooks/${webhook.id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toHaveLength(2);
    for (const delivery of deliveries.body.data) {
      expect(delivery).toMatchObject({ object: "webhook_delivery", webhook_id: webhook.id, status: "delivered", attempts: 1, last_status_code: 200, last_error: null, event_type: "budget.threshold_crossed" });
      expect(hook.received.map((entry) => entry.headers["x-gateway-delivery-id"])).toContain(delivery.id);
    }
    // A signature under any other secret does not verify: the receiver's check is real.
    hook.setSecret("whsec_not-the-secret");
    expect(hook.verified()).toHaveLength(2);
  });

  it("tries a failing receiver again with backoff until it answers 2xx, and records every outcome", async () => {
    const gateway = await gatewayWith();
    const hook = await receiver();
    hook.answer((_entry, index) => (index < 2 ? 500 : 204));
    const webhook = await webhookFor(gateway, hook);
    await call(gateway, "POST", "/v1/budgets", { body: { name: "once", scope: { type: "workspace" }, limit_usd: COST, alert_thresholds: [1], period: { type: "none" } } });
    await chat(gateway);
    await expect.poll(() => hook.received.length, { timeout: 5_000 }).toBe(3);
    const times = hook.received.map((entry) => Number(String(entry.headers["x-gateway-signature"]).slice(2, 12)));
    expect(hook.received.map((entry) => entry.headers["x-gateway-delivery-attempt"])).toEqual(["1", "2", "3"]);
    // The same delivery each time, freshly signed.
    expect(new Set(hook.received.map((entry) => entry.headers["x-gateway-delivery-id"])).size).toBe(1);
    expect(times.every((time) => Number.isInteger(time))).toBe(true);
    await expect
      .poll(async () => (await call(gateway, "GET", `/v1/webhooks/${webhook.id}/deliveries`)).body.data[0])
      .toMatchObject({ status: "delivered", attempts: 3, last_status_code: 204, last_error: null });
  });

  it("gives up after the last attempt and says why", async () => {
    const gateway = await gatewayWith({ GATEWAY_WEBHOOK_MAX_ATTEMPTS: 2, GATEWAY_WEBHOOK_RETRY_BASE_MS: 10 });
    const hook = await receiver();
    hook.answer(() => 503);
    const webhook = await webhookFor(gateway, hook);
    await call(gateway, "POST", "/v1/budgets", { body: { name: "doomed", scope: { type: "workspace" }, limit_usd: COST, alert_thresholds: [1], period: { type: "none" } } });
    await chat(gateway);
    await expect
      .poll(async () => (await call(gateway, "GET", `/v1/webhooks/${webhook.id}/deliveries?status=failed`)).body.data[0])
      .toMatchObject({ status: "failed", attempts: 2, last_status_code: 503, last_error: "The receiver answered 503.", next_attempt_at: null });
    expect(hook.received).toHaveLength(2);
  });

  it("a receiver that hangs or answers 500 never slows a request", async () => {
    const gateway = await gatewayWith({ GATEWAY_WEBHOOK_TIMEOUT_MS: 3_000 });
    const hanging = await receiver();
    hanging.answer(() => "hang");
    const failing = await receiver();
    failing.answer(() => 500);
    await webhookFor(gateway, hanging);
    await webhookFor(gateway, failing);
    // Every request crosses a threshold of its own budget: each sends events to both receivers.
    for (let index = 0; index < 5; index++) {
      await call(gateway, "POST", "/v1/budgets", { body: { name: `b${index}`, scope: { type: "user", user: `u${index}` }, limit_usd: COST, alert_thresholds: [0.1, 0.5, 1], period: { type: "none" } } });
    }
    const timings: number[] = [];
    for (let index = 0; index < 5; index++) {
      const started = performance.now();
      await chat(gateway, `u${index}`);
      timings.push(performance.now() - started);
    }
    await expect.poll(() => hanging.received.length).toBeGreaterThanOrEqual(8);
    // Requests while deliveries hang: as fast as ever (far below the 3 s the receiver is given).
    for (let index = 0; index < 5; index++) {
      const started = performance.now();
      await chat(gateway, "someone-else");
      timings.push(performance.now() - started);
    }
    expect(Math.max(...timings)).toBeLessThan(1_000);
    expect(failing.received.length).toBeGreaterThan(0);
  });

  it("refuses bad fields with a 400 naming each, shows the secret once, keeps it sealed, and records every change", async () => {
    const gateway = await gatewayWith();
    const refused: [Record<string, unknown>, string][] = [
      [{ url: "http://10.0.0.7/hook", events: ["run.halted"] }, "url"],
      [{ url: "http://169.254.169.254/latest/meta-data", events: ["run.halted"] }, "url"],
      [{ url: "ftp://127.0.0.1/hook", events: ["run.halted"] }, "url"],
      [{ url: "http://127.0.0.1:9/hook", events: [] }, "events"],
      [{ url: "http://127.0.0.1:9/hook", events: ["budget.spent"] }, "events.0"],
      [{ url: "http://127.0.0.1:9/hook", events: ["run.halted"], secret: "short" }, "secret"],
    ];
    for (const [body, param] of refused) {
      const answer = await call(gateway, "POST", "/v1/webhooks", { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.param, JSON.stringify(body)).toBe(param);
    }
    const created = await call(gateway, "POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["run.halted", "spend.drift"], secret: "my-own-secret-0123456789" } });
    expect(created.body.secret).toBe("my-own-secret-0123456789");
    const read = await call(gateway, "GET", `/v1/webhooks/${created.body.id}`);
    expect(read.body).toMatchObject({ secret: "********", events: ["run.halted", "spend.drift"], enabled: true });
    const row = await gateway.gateway.deps.store.db.selectFrom("webhooks").select("secret").where("id", "=", created.body.id).executeTakeFirstOrThrow();
    expect(row.secret).not.toContain("my-own-secret");
    expect(JSON.parse(row.secret)).toHaveProperty("$sealed");
    const updated = await call(gateway, "PATCH", `/v1/webhooks/${created.body.id}`, { body: { url: "http://10.1.2.3/hook" } });
    expect(updated.status).toBe(400);
    expect(updated.body.error.param).toBe("url");
    expect((await call(gateway, "PATCH", `/v1/webhooks/${created.body.id}`, { body: { enabled: false, secret: "rotated-secret-0123456789" } })).body).toMatchObject({ enabled: false, secret: "********" });
    expect((await call(gateway, "GET", "/v1/webhooks")).body.total).toBe(1);
    expect((await call(gateway, "DELETE", `/v1/webhooks/${created.body.id}`)).body).toEqual({ id: created.body.id, object: "webhook", deleted: true });
    const audit = await call(gateway, "GET", "/v1/audit-events?resource_type=webhook");
    expect(audit.body.data.map((event: any) => event.action)).toEqual(["webhook.deleted", "webhook.updated", "webhook.created"]);
    expect(JSON.stringify(audit.body)).not.toMatch(/my-own-secret|rotated-secret/);
  });
});
