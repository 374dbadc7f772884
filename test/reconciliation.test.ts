import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { startBillingServer, type BillingServer } from "./support/billing-server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

/**
 * The bill reconciled: virtual keys on OpenAI and on Anthropic send real requests through the
 * gateway (aimock upstream, the official `openai` client), and a local server answers the
 * providers' cost and usage reports in their documented formats with a known drift; the gateway
 * reads them with the stored usage-reading key (sealed, never shown), matches rows by project,
 * API key or workspace and by model, finds the drift, keeps the rows, and sends `spend.drift`.
 */

const OPENAI_ADMIN = "sk-admin-reconcile-0123456789abcdef";
const ANTHROPIC_ADMIN = "sk-ant-admin01-reconcile-0123456789";
/** gpt-4o: 20 in at $2.50, 50 out at $10 per million. */
const GPT_COST = (20 * 2.5 + 50 * 10) / 1e6;
/** claude-sonnet-4-20250514: 30 in at $3, 40 out at $15 per million. */
const CLAUDE_COST = (30 * 3 + 40 * 15) / 1e6;

let upstream: LLMock;
let gateway: RunningGateway;
let billing: BillingServer;
let hook: WebhookReceiver;
const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("reconciled openai", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  upstream.onMessage("reconciled claude", { content: "ok", usage: { input_tokens: 30, output_tokens: 40 } });
  billing = await startBillingServer({ openai: OPENAI_ADMIN, anthropic: ANTHROPIC_ADMIN });
  gateway = await startGateway({ GATEWAY_WEBHOOK_POLL_INTERVAL_MS: 20 });
  hook = await startWebhookReceiver();
  const created = await call(gateway, "POST", "/v1/webhooks", { body: { url: hook.url, events: ["spend.drift"] } });
  hook.setSecret(created.body.secret);
});

afterAll(async () => {
  await gateway?.close();
  await hook?.close();
  await billing?.close();
  await upstream?.stop();
});

async function virtualKey(provider: string): Promise<{ id: string; slug: string }> {
  const created = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: `billed ${provider}`, provider, key: `sk-${provider}-upstream-0123456789`, custom_host: `${upstream.url}/v1` } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

function throughKey(slug: string): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-virtual-key": slug } });
}

describe("reconciling a virtual key's bill with its provider's reports", () => {
  it("OpenAI: costs by line item and tokens by model, read for the key's project and API key, with a known drift found and sent once", async () => {
    const key = await virtualKey("openai");
    for (let index = 0; index < 4; index++) await throughKey(key.slug).chat.completions.create({ model: "gpt-4o", max_tokens: 50, messages: [{ role: "user", content: "reconciled openai" }] });
    await gateway.flushLogs();
    // The provider bills 25% more than the gateway logged, for the same tokens; a model the gateway never logged; another project's spend.
    billing.openai = [
      { date: today, model: "gpt-4o-2024-08-06", costUsd: 4 * GPT_COST * 1.25, inputTokens: 80, outputTokens: 200, project: "proj_gateway", apiKeyId: "key_gateway" },
      { date: today, model: "gpt-4o-mini-2024-07-18", costUsd: 0.02, inputTokens: 1000, outputTokens: 500, project: "proj_gateway", apiKeyId: "key_gateway" },
      { date: today, model: "gpt-4o-2024-08-06", costUsd: 99, inputTokens: 9999, outputTokens: 9999, project: "proj_other", apiKeyId: "key_other" },
    ];
    const set = await call(gateway, "PUT", `/v1/virtual-keys/${key.slug}/reconciliation`, {
      body: { admin_key: OPENAI_ADMIN, base_url: `${billing.url}/v1`, project_id: "proj_gateway", api_key_id: "key_gateway", drift_threshold_usd: 0.0001, drift_threshold_ratio: 0.1 },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ object: "reconciliation_settings", provider: "openai", admin_key: "********", project_id: "proj_gateway" });

    const reconciled = await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: yesterday, end: tomorrow } });
    expect(reconciled.status, JSON.stringify(reconciled.body)).toBe(200);
    expect(reconciled.body.matched_by).toContain("project proj_gateway");
    const gpt = reconciled.body.rows.find((row: any) => row.date === today && row.model === "gpt-4o");
    expect(gpt).toMatchObject({
      gateway_cost_usd: expect.closeTo(4 * GPT_COST, 10),
      gateway_input_tokens: 80,
      gateway_output_tokens: 200,
      gateway_requests: 4,
      provider_cost_usd: expect.closeTo(5 * GPT_COST, 10),
      provider_input_tokens: 80,
      provider_output_tokens: 200,
      drift_usd: expect.closeTo(GPT_COST, 10),
      drift_ratio: 0.2,
      drifted: true,
    });
    expect(reconciled.body.rows.find((row: any) => row.model === "gpt-4o-mini")).toMatchObject({ gateway_cost_usd: 0, provider_cost_usd: expect.closeTo(0.02, 10), drift_ratio: 1, drifted: true });
    expect(reconciled.body.totals.provider_cost_usd).toBeCloseTo(5 * GPT_COST + 0.02, 10);

    // As the API documents it: the admin key as a bearer, daily buckets, the project and key filters, every page followed.
    const costs = billing.requests.filter((request) => request.path === "/v1/organization/costs");
    const usage = billing.requests.filter((request) => request.path === "/v1/organization/usage/completions");
    expect(costs.length).toBe(2);
    expect(costs.every((request) => request.authorization === `Bearer ${OPENAI_ADMIN}` && request.query.get("bucket_width") === "1d" && request.query.get("group_by") === "line_item")).toBe(true);
    expect(costs.map((request) => request.query.getAll("project_ids"))).toEqual([["proj_gateway"], ["proj_gateway"]]);
    expect(costs[1]!.query.get("page")).toBe("1");
    expect(usage.every((request) => request.query.get("group_by") === "model" && request.query.getAll("api_key_ids").join() === "key_gateway")).toBe(true);

    // One spend.drift per drifted day and model, signed; a second reconciliation sends none again.
    await expect.poll(() => hook.verified("spend.drift").length).toBe(2);
    await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: yesterday, end: tomorrow } });
    await gateway.gateway.deps.webhooks.events.settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.verified("spend.drift")).toHaveLength(2);
    expect(hook.received.map((entry) => entry.event.data).find((data) => data.model === "gpt-4o")).toMatchObject({ virtual_key: key.slug, provider: "openai", date: today, drift_usd: expect.closeTo(GPT_COST, 10), drifted: true });

    // The rows are kept for analytics.
    const kept = await call(gateway, "GET", `/v1/reconciliation?drifted=true&virtual_key=${key.slug}`);
    expect(kept.body.data.map((row: any) => row.model).sort()).toEqual(["gpt-4o", "gpt-4o-mini"]);

    // The key is sealed, never shown, in no audit record.
    const stored = await gateway.gateway.deps.store.db.selectFrom("reconciliation_settings").select("admin_key").where("virtual_key_id", "=", key.id).executeTakeFirstOrThrow();
    expect(stored.admin_key).not.toContain(OPENAI_ADMIN);
    expect(JSON.stringify((await call(gateway, "GET", "/v1/audit-events?resource_type=reconciliation")).body)).not.toContain(OPENAI_ADMIN);
    expect((await call(gateway, "GET", `/v1/virtual-keys/${key.slug}/reconciliation`)).body.admin_key).toBe("********");
  });

  it("Anthropic: usage for the key's API key and workspace, costs in cents for its workspace, models without their dates", async () => {
    const key = await virtualKey("anthropic");
    for (let index = 0; index < 3; index++) await throughKey(key.slug).chat.completions.create({ model: "claude-sonnet-4-20250514", max_tokens: 40, messages: [{ role: "user", content: "reconciled claude" }] });
    await gateway.flushLogs();
    billing.anthropic = [
      // The provider counts 10 more input tokens and bills a tenth less than the gateway logged.
      { date: today, model: "claude-sonnet-4-20250514", costUsd: 3 * CLAUDE_COST * 0.9, inputTokens: 100, outputTokens: 120, project: "wrkspc_gateway", apiKeyId: "apikey_gateway" },
      { date: today, model: "claude-sonnet-4-20250514", costUsd: 50, inputTokens: 5000, outputTokens: 5000, project: "wrkspc_other", apiKeyId: "apikey_other" },
    ];
    expect(
      (await call(gateway, "PUT", `/v1/virtual-keys/${key.slug}/reconciliation`, { body: { admin_key: ANTHROPIC_ADMIN, base_url: billing.url, workspace_id: "wrkspc_gateway", api_key_id: "apikey_gateway", drift_threshold_usd: 0.00001, drift_threshold_ratio: 0.05 } })).status,
    ).toBe(200);
    const reconciled = await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: today, end: tomorrow } });
    expect(reconciled.status, JSON.stringify(reconciled.body)).toBe(200);
    expect(reconciled.body.rows).toHaveLength(1);
    expect(reconciled.body.rows[0]).toMatchObject({
      model: "claude-sonnet-4",
      gateway_cost_usd: expect.closeTo(3 * CLAUDE_COST, 10),
      gateway_input_tokens: 90,
      gateway_output_tokens: 120,
      provider_cost_usd: expect.closeTo(3 * CLAUDE_COST * 0.9, 8),
      provider_input_tokens: 100,
      provider_output_tokens: 120,
      drift_ratio: -0.1,
      drifted: true,
    });
    expect(reconciled.body.matched_by).toContain("workspace wrkspc_gateway");
    const usage = billing.requests.filter((request) => request.path === "/v1/organizations/usage_report/messages").at(-1)!;
    expect(usage).toMatchObject({ apiKey: ANTHROPIC_ADMIN, version: "2023-06-01" });
    expect(usage.query.getAll("group_by[]")).toEqual(["model"]);
    expect(usage.query.getAll("api_key_ids[]")).toEqual(["apikey_gateway"]);
    expect(usage.query.getAll("workspace_ids[]")).toEqual(["wrkspc_gateway"]);
  });

  it("the daily run takes each key once a day, and a provider that fails is a 502 naming it, never its key", async () => {
    const key = await virtualKey("openai");
    await call(gateway, "PUT", `/v1/virtual-keys/${key.slug}/reconciliation`, { body: { admin_key: OPENAI_ADMIN, base_url: `${billing.url}/v1` } });
    billing.requests.length = 0;
    await gateway.gateway.deps.reconciler.daily();
    const first = billing.requests.length;
    expect(first).toBeGreaterThan(0);
    await gateway.gateway.deps.reconciler.daily();
    expect(billing.requests.length).toBe(first);
    expect((await call(gateway, "GET", `/v1/virtual-keys/${key.slug}/reconciliation`)).body.last_daily_run).toBe(today);

    billing.failWith = 401;
    const failed = await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: today, end: tomorrow } });
    billing.failWith = null;
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toContain("openai answered 401");
    expect(JSON.stringify(failed.body)).not.toContain(OPENAI_ADMIN);
  });

  it("refuses what cannot be reconciled with a 400 naming the field", async () => {
    const groq = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "groq", provider: "groq", key: "gsk-upstream-0123456789abcdef" } });
    const onGroq = await call(gateway, "PUT", `/v1/virtual-keys/${groq.body.slug}/reconciliation`, { body: { admin_key: "sk-admin-x" } });
    expect([onGroq.status, onGroq.body.error.param]).toEqual([400, "slug"]);
    const key = await virtualKey("openai");
    const noKey = await call(gateway, "PUT", `/v1/virtual-keys/${key.slug}/reconciliation`, { body: { project_id: "proj_x" } });
    expect([noKey.status, noKey.body.error.param]).toEqual([400, "admin_key"]);
    const privateHost = await call(gateway, "PUT", `/v1/virtual-keys/${key.slug}/reconciliation`, { body: { admin_key: "sk-admin-x", base_url: "http://10.0.0.9/v1" } });
    expect([privateHost.status, privateHost.body.error.param]).toEqual([400, "base_url"]);
    await call(gateway, "PUT", `/v1/virtual-keys/${key.slug}/reconciliation`, { body: { admin_key: "sk-admin-x", base_url: `${billing.url}/v1` } });
    const backwards = await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: today, end: yesterday } });
    expect([backwards.status, backwards.body.error.param]).toEqual([400, "end"]);
    const long = await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: "2026-01-01", end: "2026-03-01" } });
    expect([long.status, long.body.error.param]).toEqual([400, "end"]);
    const badDate = await call(gateway, "POST", `/v1/virtual-keys/${key.slug}/reconcile`, { body: { start: "yesterday", end: today } });
    expect([badDate.status, badDate.body.error.param]).toEqual([400, "start"]);
  });
});
