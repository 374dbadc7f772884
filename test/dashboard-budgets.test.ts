import type { LLMock } from "@copilotkit/aimock";
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";
import { usd } from "../dashboard/lib/format.ts";

/**
 * The dashboard's Budgets view in Debian's Chromium against a real gateway: budgets of several
 * scopes with the spend real requests settled, a budget held per end user with its members, a
 * key's own budget marked as such, and the form that creates one (a refused field shows the
 * API's message). Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";
/** gpt-4o: 20 tokens in at $2.50, 50 out at $10 per million. */
const COST = (20 * 2.5 + 50 * 10) / 1e6;

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser] = await Promise.all([startUpstream(), startGateway({ GATEWAY_SPEND_FLUSH_INTERVAL_MS: 20 }), launchChromium()]);
  upstream.onMessage("budget view", { content: "ok", usage: { prompt_tokens: 20, completion_tokens: 50, total_tokens: 70 } });
  const create = async (body: Record<string, unknown>) => expect((await call(gateway, "POST", "/v1/budgets", { body })).status).toBe(201);
  await create({ name: "Whole workspace", scope: { type: "workspace" }, limit_usd: 4 * COST, alert_thresholds: [0.5, 1], period: { type: "calendar", unit: "month", time_zone: "Europe/Berlin" } });
  await create({ name: "Per end user", scope: { type: "user" }, limit_usd: 10 * COST, period: { type: "rolling", unit: "hour", count: 24 } });
  const keyed = await call(gateway, "POST", "/v1/api-keys", { body: { name: "capped", role: "service", budget: { credit_limit_usd: 1, period: "daily" } } });
  expect(keyed.status).toBe(201);
  const send = (user: string) => openaiClient(gateway, upstream).chat.completions.create({ model: "gpt-4o", max_tokens: 50, user, messages: [{ role: "user", content: "budget view" }] });
  await send("alice");
  await send("alice");
  await send("bob");
  // Members are listed from the store, written every 20 ms here.
  const deadline = Date.now() + 10_000;
  while ((await call(gateway, "GET", "/v1/budgets")).body.data.find((budget: any) => budget.name === "Per end user").members.length < 2) {
    if (Date.now() > deadline) throw new Error("the per-user budget's members never reached the store");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${gateway.url}/`);
  await page.getByLabel("Gateway key").fill(gateway.adminKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

describe("the Budgets view in Chromium", () => {
  it("lists each budget with its spend, period and forecast, and a per-user budget's members", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signIn(page);
    await page.getByRole("link", { name: "Budgets" }).click();
    await page.getByTestId("budgets").waitFor();
    const row = (name: string) => page.locator("[data-testid=budgets] tbody tr", { hasText: name });
    const workspace = await row("Whole workspace").textContent();
    expect(workspace).toContain("workspace");
    expect(workspace).toContain("each month, Europe/Berlin");
    expect(workspace).toContain(`${usd(3 * COST)} of ${usd(4 * COST)}`);
    expect(workspace).toContain("50%, 100%");
    expect(await row("Whole workspace").locator("[role=meter]").getAttribute("aria-valuenow")).toBe(String(3 * COST));
    const perUser = await row("Per end user").first().textContent();
    expect(perUser).toContain("each end user");
    expect(perUser).toContain("last 24 hours");
    expect(await page.locator("tr.member[data-member=alice]").textContent()).toContain(`${usd(2 * COST)} of ${usd(10 * COST)}`);
    expect(await page.locator("tr.member[data-member=bob]").textContent()).toContain(usd(COST));
    // The gateway key's own budget, marked, with no delete button.
    const own = row("gateway key capped");
    expect(await own.textContent()).toContain("key");
    expect(await own.getByRole("button", { name: "Delete" }).count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/20-budgets.png`, fullPage: true });
  });

  it("creates a budget from the form, showing the API's refusal of a bad time zone first", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signIn(page);
    await page.goto(`${gateway.url}/#/budgets`);
    await page.getByRole("button", { name: "New budget" }).click();
    const form = page.getByRole("form", { name: "New budget" });
    await form.getByLabel("Name").fill("Search team");
    await form.getByLabel("Scope").selectOption("metadata");
    await form.getByLabel("Metadata key").fill("team");
    await form.getByLabel("Value (empty: each)").fill("search");
    await form.getByLabel("Limit (USD)").fill("25");
    await form.getByLabel("Time zone").fill("Atlantis/Nowhere");
    await form.getByRole("button", { name: "Create budget" }).click();
    await expect(form.getByRole("alert").textContent()).resolves.toMatch(/Unknown time zone "Atlantis\/Nowhere"/);
    await form.getByLabel("Time zone").fill("America/New_York");
    await form.getByRole("button", { name: "Create budget" }).click();
    await page.locator("[data-testid=budgets] tbody tr", { hasText: "Search team" }).waitFor();
    expect(await page.locator("[data-testid=budgets] tbody tr", { hasText: "Search team" }).textContent()).toContain("team=search");
    const stored = (await call(gateway, "GET", "/v1/budgets")).body.data.find((budget: any) => budget.name === "Search team");
    expect(stored).toMatchObject({ scope: { type: "metadata", key: "team", value: "search" }, limit_usd: 25, alert_thresholds: [0.5, 0.8, 1], period: { type: "calendar", unit: "month", time_zone: "America/New_York" } });
    await page.screenshot({ path: `${ARTIFACTS}/21-budget-created.png`, fullPage: true });
  });
});
