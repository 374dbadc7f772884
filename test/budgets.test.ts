import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, openaiClient, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";

/**
 * Budgets of every scope through the real gateway, driven by the official `openai` client with
 * aimock as the upstream: what each scope holds, the 412 past a limit, the reads (spend,
 * remaining, the period's end, the forecast), the fields refused with a 400 naming them, the
 * audit record, a key's own limits as a budget of its scope, and a calendar month in New York
 * across a daylight-saving change under a fake clock.
 */

let upstream: LLMock;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("budgeted", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await upstream?.stop();
});

afterEach(() => {
  vi.useRealTimers();
});

async function gatewayWith(): Promise<RunningGateway> {
  const gateway = await startGateway({ GATEWAY_SPEND_FLUSH_INTERVAL_MS: 20 });
  gateways.push(gateway);
  return gateway;
}

const MESSAGES = [{ role: "user" as const, content: "budgeted" }];
/** gpt-4o at $2.50 in and $10 out per million tokens: 20 in, 50 out. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;

async function createBudget(gateway: RunningGateway, body: Record<string, unknown>): Promise<any> {
  const created = await call(gateway, "POST", "/v1/budgets", { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** One chat call through the official client; the status it ended with (200, or the error's). */
async function chat(gateway: RunningGateway, extra: { user?: string; model?: string; metadata?: Record<string, string> } = {}): Promise<number> {
  const client = openaiClient(gateway, upstream, extra.metadata ? { "x-gateway-metadata": JSON.stringify(extra.metadata) } : {});
  try {
    await client.chat.completions.create({ model: extra.model ?? "gpt-4o", max_tokens: 50, messages: MESSAGES, ...(extra.user && { user: extra.user }) });
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

describe("budgets: what each scope holds", () => {
  it("an end user's budget holds that user only; a budget held per end user holds each one separately", async () => {
    const gateway = await gatewayWith();
    const alice = await createBudget(gateway, { name: "alice", scope: { type: "user", user: "alice" }, limit_usd: 1.5 * COST, period: { type: "calendar", unit: "day" } });
    // alice spends one call (under 1.5), a second (admitted at 1.0 < 1.5), then 412.
    expect([await chat(gateway, { user: "alice" }), await chat(gateway, { user: "alice" }), await chat(gateway, { user: "alice" })]).toEqual([200, 200, 412]);
    // bob and a request without a user are not held by alice's budget; `_user` in the metadata names the end user too.
    expect(await chat(gateway, { user: "bob" })).toBe(200);
    expect(await chat(gateway)).toBe(200);
    expect(await chat(gateway, { metadata: { _user: "alice" } })).toBe(412);
    const read = await call(gateway, "GET", `/v1/budgets/${alice.id}`);
    expect(read.body).toMatchObject({ spent_usd: expect.closeTo(2 * COST, 12), remaining_usd: 0, members: [] });

    const each = await createBudget(gateway, { name: "per user", scope: { type: "user" }, limit_usd: 0.5 * COST, period: { type: "none" } });
    expect([await chat(gateway, { user: "carol" }), await chat(gateway, { user: "carol" })]).toEqual([200, 412]);
    expect([await chat(gateway, { user: "dave" }), await chat(gateway, { user: "dave" })]).toEqual([200, 412]);
    const member = await call(gateway, "GET", `/v1/budgets/${each.id}?member=carol`);
    expect(member.body).toMatchObject({ scope: { type: "user", user: null }, spent_usd: expect.closeTo(COST, 12), remaining_usd: 0, period_start: null, period_end: null, forecast_usd: null });
    // The members come from the store once spend is written there (every 20 ms here).
    await expect.poll(async () => (await call(gateway, "GET", `/v1/budgets/${each.id}`)).body.members.length).toBe(2);
    const whole = await call(gateway, "GET", `/v1/budgets/${each.id}`);
    expect(whole.body.spent_usd).toBeNull();
    expect(whole.body.members.map((entry: any) => [entry.value, entry.remaining_usd]).sort()).toEqual([["carol", 0], ["dave", 0]]);
  });

  it("a metadata value's budget holds the requests that carry it, a model's budget those served by that model, the workspace's all", async () => {
    const gateway = await gatewayWith();
    await createBudget(gateway, { name: "search", scope: { type: "metadata", key: "team", value: "search" }, limit_usd: 0.5 * COST, period: { type: "calendar", unit: "month", time_zone: "Europe/Berlin" } });
    expect([await chat(gateway, { metadata: { team: "search" } }), await chat(gateway, { metadata: { team: "search" } })]).toEqual([200, 412]);
    expect(await chat(gateway, { metadata: { team: "ads" } })).toBe(200);

    await createBudget(gateway, { name: "mini", scope: { type: "model", model: "gpt-4o-mini" }, rate_limit: { requests_per_minute: 1 }, period: { type: "none" } });
    expect([await chat(gateway, { model: "gpt-4o-mini" }), await chat(gateway, { model: "gpt-4o-mini" })]).toEqual([200, 429]);
    expect(await chat(gateway, { model: "gpt-4o" })).toBe(200);

    const workspace = await createBudget(gateway, { name: "all", scope: { type: "workspace" }, limit_usd: 1000, alert_thresholds: [0.5, 0.8], period: { type: "rolling", unit: "hour", count: 6 } });
    expect(await chat(gateway, { metadata: { team: "ads" } })).toBe(200);
    const read = await call(gateway, "GET", `/v1/budgets/${workspace.id}`);
    // A rolling window has no end; its forecast is its spend over one window.
    expect(read.body).toMatchObject({ period: { type: "rolling", unit: "hour", count: 6 }, spent_usd: expect.closeTo(COST, 12), period_end: null, forecast_usd: expect.closeTo(COST, 12) });
    expect(Date.now() - Date.parse(read.body.period_start)).toBeGreaterThanOrEqual(6 * 3_600_000 - 1000);
  });

  it("a virtual key's own limits are a budget of its scope, read the same through the key and through /v1/budgets, and changed only through the key", async () => {
    const gateway = await gatewayWith();
    const created = await call(gateway, "POST", "/v1/virtual-keys", {
      body: { name: "own", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1`, budget: { credit_limit_usd: 10 * COST, period: "monthly", alert_threshold: 0.5 } },
    });
    expect(created.status).toBe(201);
    const slug = created.body.slug as string;
    const headers = { "x-gateway-virtual-key": slug };
    expect((await call(gateway, "POST", "/v1/chat/completions", { body: { model: "gpt-4o", max_tokens: 50, messages: MESSAGES }, headers })).status).toBe(200);
    const list = await call(gateway, "GET", "/v1/budgets");
    const own = list.body.data.find((budget: any) => budget.source === "key");
    expect(own).toMatchObject({ scope: { type: "virtual_key", virtual_key: slug, virtual_key_id: created.body.id }, limit_usd: 10 * COST, alert_thresholds: [0.5], period: { type: "calendar", unit: "month", time_zone: "UTC" } });
    const key = await call(gateway, "GET", `/v1/virtual-keys/${slug}`);
    expect(key.body.spent_usd).toBeCloseTo(COST, 12);
    expect(own.spent_usd).toBeCloseTo(key.body.spent_usd, 12);
    expect(own.period_end).toBe(key.body.period_resets_at);

    const patched = await call(gateway, "PATCH", `/v1/budgets/${own.id}`, { body: { limit_usd: 1 } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.param).toBe("id");
    expect((await call(gateway, "DELETE", `/v1/budgets/${own.id}`)).status).toBe(400);
    // Through the key: the budget follows, and null removes it.
    expect((await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { budget: { credit_limit_usd: 2, period: "daily" } } })).status).toBe(200);
    expect((await call(gateway, "GET", `/v1/budgets/${own.id}`)).body).toMatchObject({ limit_usd: 2, period: { type: "calendar", unit: "day", time_zone: "UTC" } });
    expect((await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { budget: null } })).status).toBe(200);
    expect((await call(gateway, "GET", `/v1/budgets/${own.id}`)).status).toBe(404);
  });
});

describe("budgets: the API", () => {
  it("refuses bad fields with a 400 naming each", async () => {
    const gateway = await gatewayWith();
    const base = { name: "b", scope: { type: "workspace" }, limit_usd: 5, period: { type: "calendar", unit: "month" } };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, period: { type: "calendar", unit: "month", time_zone: "Mars/Olympus_Mons" } }, "period.time_zone"],
      [{ ...base, limit_usd: -1 }, "limit_usd"],
      [{ ...base, limit_usd: 1e12 }, "limit_usd"],
      [{ ...base, alert_thresholds: [0.5, 0] }, "alert_thresholds.1"],
      [{ ...base, alert_thresholds: [1.5] }, "alert_thresholds.0"],
      [{ ...base, period: { type: "rolling", unit: "day", count: 32 } }, "period.count"],
      [{ ...base, period: { type: "rolling", unit: "month", count: 1 } }, "period.unit"],
      [{ ...base, period: { type: "calendar", unit: "month", count: 2 } }, "period.count"],
      [{ ...base, scope: { type: "workspace", user: "alice" } }, "scope.user"],
      [{ ...base, scope: { type: "metadata" } }, "scope.key"],
      [{ ...base, scope: { type: "virtual_key", virtual_key: "vk-none-00000000" } }, "scope.virtual_key"],
      [{ ...base, scope: { type: "api_key", api_key_id: crypto.randomUUID() } }, "scope.api_key_id"],
      [{ name: "b", scope: { type: "workspace" }, period: { type: "none" } }, "limit_usd"],
      [{ name: "b", scope: { type: "workspace" }, period: { type: "none" }, rate_limit: { requests_per_minute: 0 } }, "rate_limit.requests_per_minute"],
      [{ ...base, limit_usd: undefined, rate_limit: { requests_per_minute: 5 }, alert_thresholds: [0.5] }, "alert_thresholds"],
    ];
    for (const [body, param] of cases) {
      const refused = await call(gateway, "POST", "/v1/budgets", { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await call(gateway, "GET", "/v1/budgets")).body.total).toBe(0);
  });

  it("creates, reads, changes and deletes a budget, each write in the audit log; a service key may not", async () => {
    const gateway = await gatewayWith();
    const created = await createBudget(gateway, { name: "team", scope: { type: "metadata", key: "team" }, limit_usd: 5, alert_thresholds: [1, 0.5, 0.8, 0.5], period: { type: "calendar", unit: "week", week_start: "sunday", time_zone: "Asia/Tokyo" } });
    expect(created).toMatchObject({ object: "budget", source: "budget", alert_thresholds: [0.5, 0.8, 1], scope: { type: "metadata", key: "team", value: null }, period: { type: "calendar", unit: "week", week_start: "sunday", time_zone: "Asia/Tokyo" }, members: [] });
    const changed = await call(gateway, "PATCH", `/v1/budgets/${created.id}`, { body: { limit_usd: null, rate_limit: { requests_per_day: 100 } } });
    expect(changed.status).toBe(200);
    // Without a USD limit, thresholds have nothing to be fractions of.
    expect(changed.body).toMatchObject({ limit_usd: null, alert_thresholds: [], rate_limit: { requests_per_day: 100 } });
    expect((await call(gateway, "PATCH", `/v1/budgets/${created.id}`, { body: { rate_limit: null } })).body.error.param).toBe("limit_usd");
    expect((await call(gateway, "DELETE", `/v1/budgets/${created.id}`)).body).toEqual({ id: created.id, object: "budget", deleted: true });
    expect((await call(gateway, "GET", `/v1/budgets/${created.id}`)).status).toBe(404);
    const events = await call(gateway, "GET", `/v1/audit-events?resource_type=budget`);
    expect(events.body.data.map((event: any) => event.action)).toEqual(["budget.deleted", "budget.updated", "budget.created"]);
    expect(events.body.data[1].after).toMatchObject({ limit_usd: null, rate_limit: { requests_per_day: 100 } });

    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "svc", role: "service" } });
    expect((await call(gateway, "POST", "/v1/budgets", { body: { name: "x", scope: { type: "workspace" }, limit_usd: 1, period: { type: "none" } }, key: service.body.key })).status).toBe(403);
  });
});

describe("budgets: a calendar month in a time zone, under a fake clock", () => {
  it("a New York month spans the spring-forward change, resets at New York's midnight (not UTC's), and forecasts from the part elapsed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    // 2026-03-16 00:00 New York (EDT, UTC-4): 15 of March's 31 days less one hour have passed.
    vi.setSystemTime(new Date("2026-03-16T04:00:00Z"));
    const gateway = await gatewayWith();
    const budget = await createBudget(gateway, { name: "ny", scope: { type: "workspace" }, limit_usd: 1.5 * COST, period: { type: "calendar", unit: "month", time_zone: "America/New_York" } });
    expect(budget).toMatchObject({ period_start: "2026-03-01T05:00:00.000Z", period_end: "2026-04-01T04:00:00.000Z", spent_usd: 0, forecast_usd: 0 });
    expect([await chat(gateway), await chat(gateway), await chat(gateway)]).toEqual([200, 200, 412]);
    const read = await call(gateway, "GET", `/v1/budgets/${budget.id}`);
    const elapsed = Date.parse("2026-03-16T04:00:00Z") - Date.parse("2026-03-01T05:00:00Z");
    const length = Date.parse("2026-04-01T04:00:00Z") - Date.parse("2026-03-01T05:00:00Z");
    expect(read.body.forecast_usd).toBeCloseTo(2 * COST * (length / elapsed), 6);

    // April already in UTC, still March in New York: the budget still refuses.
    vi.setSystemTime(new Date("2026-04-01T03:59:00Z"));
    expect(await chat(gateway)).toBe(412);
    // New York's midnight: a new period, spend from 0.
    vi.setSystemTime(new Date("2026-04-01T04:00:00Z"));
    expect(await chat(gateway)).toBe(200);
    const april = await call(gateway, "GET", `/v1/budgets/${budget.id}`);
    expect(april.body).toMatchObject({ period_start: "2026-04-01T04:00:00.000Z", period_end: "2026-05-01T04:00:00.000Z", spent_usd: expect.closeTo(COST, 12) });
  });
});
