import type { LLMock } from "@copilotkit/aimock";
import { mkdir } from "node:fs/promises";
import type { Browser } from "playwright-core";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";
import { startBillingServer, type BillingServer } from "./support/billing-server.ts";
import { usd } from "../dashboard/lib/format.ts";

/**
 * The drift between a virtual key's logged cost and its provider's bill, in the dashboard's
 * Analytics view in Debian's Chromium, after a reconciliation against a local server speaking
 * OpenAI's cost and usage report formats. Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";
const ADMIN_KEY = "sk-admin-dashboard-drift-0123456789";
/** gpt-4o: 20 in at $2.50, 50 out at $10 per million. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;
let billing: BillingServer;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser, billing] = await Promise.all([startUpstream(), startGateway(), launchChromium(), startBillingServer({ openai: ADMIN_KEY, anthropic: "unused" })]);
  upstream.onMessage("drifting", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  const key = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "billed", provider: "openai", key: "sk-billed-upstream-0123456789", custom_host: `${upstream.url}/v1` } });
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-virtual-key": key.body.slug } });
  for (let index = 0; index < 2; index++) await client.chat.completions.create({ model: "gpt-4o", max_tokens: 50, messages: [{ role: "user", content: "drifting" }] });
  await gateway.flushLogs();
  const today = new Date().toISOString().slice(0, 10);
  billing.openai = [{ date: today, model: "gpt-4o-2024-08-06", costUsd: 3 * COST, inputTokens: 40, outputTokens: 100 }];
  await call(gateway, "PUT", `/v1/virtual-keys/${key.body.slug}/reconciliation`, { body: { admin_key: ADMIN_KEY, base_url: `${billing.url}/v1`, drift_threshold_usd: 0.0001 } });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  expect((await call(gateway, "POST", `/v1/virtual-keys/${key.body.slug}/reconcile`, { body: { start: today, end: tomorrow } })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await billing?.close();
  await upstream?.stop();
});

describe("drift in the Analytics view", () => {
  it("lists the reconciled day and model, logged against billed, the drifted row marked", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 1100 } })).newPage();
    await page.goto(`${gateway.url}/`);
    await page.getByLabel("Gateway key").fill(gateway.adminKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Analytics" }).click();
    const table = page.getByTestId("drift");
    await table.waitFor();
    const row = table.locator("tbody tr[data-drifted=yes]");
    expect(await row.count()).toBe(1);
    const text = await row.textContent();
    expect(text).toContain("gpt-4o");
    expect(text).toContain(usd(2 * COST));
    expect(text).toContain(usd(3 * COST));
    expect(text).toContain("33.3%");
    await page.screenshot({ path: `${ARTIFACTS}/40-drift.png`, fullPage: true });
  });
});
