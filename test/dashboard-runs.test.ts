import type { LLMock } from "@copilotkit/aimock";
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";

/**
 * A halted run in the dashboard's trace view, in Debian's Chromium: the rule and figure that
 * stopped it, its refused request among the spans, and the admin's resume, after which the run
 * is admitted again. Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";
const TRACE = "agent-run-halted";

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;
let agentKey: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser] = await Promise.all([startUpstream(), startGateway(), launchChromium()]);
  upstream.onMessage("loop", { content: "again", usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "agent", role: "service", run_limits: { repeat_limit: 2 } } });
  agentKey = created.body.key;
  const client = openaiClient(gateway, upstream, { "x-gateway-api-key": agentKey, "x-gateway-trace-id": TRACE });
  const step = () => client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "loop" }] });
  await step();
  await step();
  await expect(step()).rejects.toMatchObject({ status: 423 });
  await gateway.flushLogs();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
});

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${gateway.url}/`);
  await page.getByLabel("Gateway key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

describe("a halted run in the trace view", () => {
  it("shows the rule and figure, no resume button for a service key", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, agentKey);
    await page.goto(`${gateway.url}/#/traces/${TRACE}`);
    const halted = page.getByTestId("run-halted");
    await halted.waitFor();
    expect(await halted.textContent()).toMatch(/Run halted by repeat_limit: repeats of one call reached 3 of 2/);
    expect(await halted.getByRole("button", { name: "Resume run" }).count()).toBe(0);
    await page.locator("[data-testid=span]").nth(2).waitFor();
    expect(await page.locator("table.compact tbody").textContent()).toContain("423");
  });

  it("lets an admin resume it; the run is admitted again", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, gateway.adminKey);
    await page.goto(`${gateway.url}/#/traces/${TRACE}`);
    await page.getByTestId("run-halted").waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/30-run-halted.png`, fullPage: true });
    await page.getByRole("button", { name: "Resume run" }).click();
    await page.getByTestId("run-halted").waitFor({ state: "detached" });
    expect(await page.getByTestId("run-counts").textContent()).toContain("0 requests");
    await openaiClient(gateway, upstream, { "x-gateway-api-key": agentKey, "x-gateway-trace-id": TRACE }).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "loop" }] });
    expect((await call(gateway, "GET", `/v1/runs/${TRACE}`)).body).toMatchObject({ requests: 1, halted: null });
  });
});
