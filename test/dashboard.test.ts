import type { LLMock } from "@copilotkit/aimock";
import { mkdir, readFile } from "node:fs/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";
import { usd } from "../dashboard/lib/format.ts";

/**
 * The dashboard end to end: a real gateway with real logged requests, driven in Debian's
 * Chromium. Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";
const XSS = `<script>window.__xss = "script"</script><img src=x onerror="window.__xss='img'">`;
const TRACE = "trace-dashboard-e2e";

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;
let serviceKey: string;
let analytics = false;
let feedback = false;
let exportRoute = false;
const outside: string[] = [];

async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on("request", (request) => {
    if (!request.url().startsWith(gateway.url) && !request.url().startsWith("data:") && !request.url().startsWith("blob:")) outside.push(request.url());
  });
  return page;
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${gateway.url}/`);
  await page.getByLabel("Gateway key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

async function rowCount(page: Page): Promise<number> {
  await page.getByTestId("logs-table").waitFor();
  return page.locator("[data-testid=logs-table] tbody tr").count();
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser] = await Promise.all([startUpstream(), startGateway(), launchChromium()]);
  upstream.onMessage("hello", { content: "Hi there!", usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
  upstream.onMessage("plan", { content: "First plan, then answer.", usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 } });
  upstream.onMessage("stream", { content: "One two three four five" });
  upstream.onMessage("script", { content: `I will not run ${XSS}` });
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "reader", role: "service" } });
  serviceKey = created.body.key;
  const paths = (await call(gateway, "GET", "/openapi.json")).body.paths;
  analytics = "/v1/analytics/summary" in paths;
  feedback = "/v1/feedback" in paths;
  exportRoute = "/v1/logs/export" in paths;

  const send = (user: string, model: string, content: string, headers: Record<string, string> = {}) =>
    openaiClient(gateway, upstream, headers).chat.completions.create({ model, user, messages: [{ role: "user", content }] });
  await send("alice", "gpt-4o-mini", "hello there", { "x-gateway-metadata": JSON.stringify({ env: "prod", team: "search" }) });
  await send("alice", "gpt-4o-mini", "hello again", { "x-gateway-metadata": JSON.stringify({ env: "prod" }) });
  await send("bob", "gpt-4o", "hello from bob", { "x-gateway-metadata": JSON.stringify({ env: "dev" }) });
  const stream = await openaiClient(gateway, upstream).chat.completions.create({ model: "gpt-4o-mini", user: "carol", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "stream please" }] });
  for await (const _chunk of stream) void _chunk;
  const span = (id: string, name: string, parent?: string) => ({ "x-gateway-trace-id": TRACE, "x-gateway-span-id": id, "x-gateway-span-name": name, ...(parent ? { "x-gateway-parent-span-id": parent } : {}) });
  await send("dave", "gpt-4o-mini", "plan the agent run", span("root", "agent-run"));
  await send("dave", "gpt-4o-mini", "plan the next step", span("s-plan", "plan-step", "root"));
  await send("dave", "gpt-4o", "hello tool", span("s-tool", "tool-call", "s-plan"));
  // Nothing listens on port 1: a logged 502.
  await expect(send("erin", "gpt-4o-mini", "hello nobody", { "x-gateway-custom-host": "http://127.0.0.1:1/v1" })).rejects.toThrow();
  await send(`mallory<img src=x onerror="window.__xss='user'">`, "gpt-4o-mini", `script ${XSS}`, { "x-gateway-metadata": JSON.stringify({ case: "xss", note: XSS }) });
  await gateway.flushLogs();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
});

describe("dashboard in Chromium", () => {
  it("serves the page under its policy and refuses a wrong key", async () => {
    const response = await fetch(`${gateway.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    const page = await openPage(await browser.newContext());
    await page.goto(`${gateway.url}/`);
    await page.getByLabel("Gateway key").fill("not-a-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/401/);
    await shot(page, "01-sign-in-refused");
  });

  it("lists, filters by user and model, and opens the exact request and response", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await openPage(context);
    await signIn(page, gateway.adminKey);
    expect(await page.getByTestId("role").textContent()).toContain("admin");
    expect(await rowCount(page)).toBe(9);
    await shot(page, "02-logs");

    await page.getByLabel("Outcome").selectOption("false");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 1);
    expect(await page.locator("[data-testid=logs-table] tbody").textContent()).toContain("erin");
    await page.getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 9);

    await page.getByLabel("End user").fill("alice");
    await page.getByLabel("End user").press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 2);
    expect(page.url()).toContain("user=alice");
    await page.getByLabel("End user").fill("");
    await page.getByLabel("Model").fill("gpt-4o");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/model=gpt-4o$/);
    await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=logs-table] tbody td.model")].map((cell) => cell.textContent).join() === "gpt-4o,gpt-4o");
    expect(page.url()).not.toContain("user=");

    // A shared address restores the view, metadata filter included.
    await page.goto(`${gateway.url}/#/logs?metadata%5Benv%5D=prod`);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 2);
    await page.goto(`${gateway.url}/#/logs?user=bob`);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 1);
    await page.locator("[data-testid=logs-table] tbody tr a").first().click();
    await page.getByTestId("request-body").waitFor();
    const id = decodeURIComponent(page.url().split("#/logs/")[1]!);
    const record = (await call(gateway, "GET", `/v1/logs/${id}`)).body;
    expect(await page.getByTestId("request-body").textContent()).toBe(JSON.stringify(record.request.body, null, 2));
    expect(await page.getByTestId("response-body").textContent()).toBe(JSON.stringify(record.response.body, null, 2));
    expect(await page.getByTestId("response-body").textContent()).toContain("Hi there!");
    expect(await page.getByTestId("attempts").locator("tbody tr").count()).toBe(1);
    await shot(page, "03-log-detail");

    await page.goto(`${gateway.url}/#/logs?user=alice`);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 2);
    if (exportRoute) {
      const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSONL" }).click()]);
      expect(file.suggestedFilename()).toMatch(/^gateway-logs-.*\.jsonl$/);
      const lines = (await readFile(await file.path(), "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      expect(lines.map((line) => line.user)).toEqual(["alice", "alice"]);
    } else {
      expect(await page.getByRole("button", { name: /Export/ }).count()).toBe(0);
    }
    await context.close();
  });

  it("renders a hostile logged body, user and metadata as text", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await openPage(context);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page, gateway.adminKey);
    await page.goto(`${gateway.url}/#/logs?metadata%5Bcase%5D=xss`);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 1);
    expect(await page.locator("[data-testid=logs-table] tbody").textContent()).toContain(`mallory<img src=x onerror="window.__xss='user'">`);
    await page.locator("[data-testid=logs-table] tbody tr a").first().click();
    await page.getByTestId("request-body").waitFor();
    expect(await page.getByTestId("request-body").textContent()).toContain(JSON.stringify(`script ${XSS}`).slice(1, -1));
    expect(await page.getByTestId("response-body").textContent()).toContain("I will not run <script>");
    expect(await page.locator("main").textContent()).toContain(XSS);
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (window as { __xss?: string }).__xss)).toBeUndefined();
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(dialogs).toEqual([]);
    await shot(page, "04-xss-as-text");
    await context.close();
  });

  it("shows a trace as nested spans", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await openPage(context);
    await signIn(page, serviceKey);
    await page.goto(`${gateway.url}/#/traces/${TRACE}`);
    await page.getByTestId("timeline").waitFor();
    const spans = page.getByTestId("span");
    expect(await spans.count()).toBe(3);
    expect(await spans.locator(".span-name").allTextContents()).toEqual(["agent-run", "plan-step", "tool-call"]);
    const indents = await spans.locator(".timeline-label").evaluateAll((labels) => labels.map((label) => parseInt((label as HTMLElement).style.paddingLeft, 10)));
    expect(indents[0]).toBeLessThan(indents[1]!);
    expect(indents[1]).toBeLessThan(indents[2]!);
    const bars = await spans.locator(".bar").evaluateAll((elements) => elements.map((bar) => parseFloat((bar as HTMLElement).style.left)));
    expect(bars[0]).toBe(0);
    expect(bars[2]).toBeGreaterThan(bars[0]!);
    if (feedback) {
      await page.getByLabel("Value (−10 to 10)").fill("7");
      await page.getByLabel("Weight (0 to 1)").fill("0.5");
      await page.getByLabel("Metadata (JSON, optional)").fill('{"source":"e2e"}');
      await page.getByRole("button", { name: "Add feedback" }).click();
      await page.getByTestId("feedback").getByText("+7").waitFor();
      const stored = (await call(gateway, "GET", `/v1/feedback?trace_id=${TRACE}`, { key: serviceKey })).body.data;
      expect(stored).toMatchObject([{ trace_id: TRACE, value: 7, weight: 0.5, metadata: { source: "e2e" } }]);
      await shot(page, "05-trace");
      await page.getByLabel("Value (−10 to 10)").fill("11");
      await page.getByRole("button", { name: "Add feedback" }).click();
      expect(await page.getByTestId("feedback").locator("li").count()).toBe(1);
    } else {
      expect(await page.getByRole("heading", { name: "Feedback" }).count()).toBe(0);
      await shot(page, "05-trace");
    }
    await page.goto(`${gateway.url}/#/traces`);
    await page.getByRole("link", { name: TRACE }).waitFor();
    await context.close();
  });

  it("draws analytics charts from the logged requests", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await openPage(context);
    await signIn(page, gateway.adminKey);
    await page.goto(`${gateway.url}/#/analytics?range=1h&metadata_key=env`);
    if (!analytics) {
      await page.getByText("no analytics routes").waitFor();
      return;
    }
    await page.getByTestId("summary").waitFor();
    expect(await page.getByTestId("summary").textContent()).toContain("9");
    expect(await page.getByTestId("summary").textContent()).toContain("1 error");
    // Nothing was served from the cache yet: exact and semantic hits are counted apart.
    expect(await page.getByTestId("cache-hits").textContent()).toContain("0 exact · 0 semantic");
    await page.locator("[data-testid=chart-requests] canvas").waitFor();
    await page.getByTestId("group-user").waitFor();
    expect(await page.getByTestId("group-user").locator("tbody tr").count()).toBe(6);
    await page.getByTestId("group-metadata").waitFor();
    expect(await page.getByTestId("group-metadata").textContent()).toContain("prod");
    // The requests chart's canvas has something drawn on it.
    const drawn = await page.locator("[data-testid=chart-requests] canvas").evaluate((canvas) => {
      const pixels = (canvas as HTMLCanvasElement).getContext("2d")!.getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height).data;
      let coloured = 0;
      for (let index = 0; index < pixels.length; index += 4) if (pixels[index + 3]! > 0 && pixels[index + 2]! > pixels[index]! + 60) coloured++;
      return coloured;
    });
    expect(drawn).toBeGreaterThan(20);
    await shot(page, "06-analytics");
    await context.close();
  });

  it("lets an admin create a virtual key and shows the API's errors", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await openPage(context);
    await signIn(page, gateway.adminKey);
    await page.getByRole("link", { name: "Virtual keys" }).click();
    await page.getByRole("button", { name: "New virtual key" }).click();
    await page.getByLabel("Name").fill("team-search");
    await page.getByLabel("Provider").fill("no-such-provider");
    await page.getByLabel("Upstream key", { exact: true }).fill("sk-team-search-secret-1234");
    await page.getByLabel("Credit limit (USD)").fill("25");
    await page.getByRole("button", { name: "Create virtual key" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/400/);
    await page.getByLabel("Provider").fill("openai");
    await page.getByRole("button", { name: "Create virtual key" }).click();
    await page.getByTestId("virtual-keys").getByRole("link", { name: "team-search" }).waitFor();
    expect(await page.getByTestId("virtual-keys").textContent()).toContain("1234");
    expect(await page.getByTestId("virtual-keys").textContent()).not.toContain("sk-team-search-secret");
    const stored = (await call(gateway, "GET", "/v1/virtual-keys")).body.data;
    expect(stored.map((key: { name: string }) => key.name)).toEqual(["team-search"]);
    expect(stored[0].budget.credit_limit_usd).toBe(25);
    await shot(page, "07-virtual-keys");

    // Configs: the JSON editor shows the API's refusal, then creates; two versions side by side.
    await page.getByRole("link", { name: "Configs" }).click();
    await page.getByRole("button", { name: "New config" }).click();
    await page.getByLabel("Body (JSON)").fill(JSON.stringify({ name: "routing", config: { provider: "openai", nope: 1 } }));
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/400/);
    await page.getByLabel("Body (JSON)").fill(JSON.stringify({ name: "routing", config: { provider: "openai" } }));
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("link", { name: "routing" }).waitFor();
    const slug = (await call(gateway, "GET", "/v1/configs")).body.data[0].slug;
    expect((await call(gateway, "PUT", `/v1/configs/${slug}`, { body: { config: { provider: "groq" } } })).status).toBe(200);
    await page.getByRole("link", { name: "Versions" }).click();
    await page.getByTestId("version-right").waitFor();
    expect(await page.getByTestId("version-left").textContent()).toContain('"openai"');
    expect(await page.getByTestId("version-right").textContent()).toContain('"groq"');
    expect(await page.locator("[data-testid=version-right] .added").count()).toBe(1);
    await shot(page, "08-config-versions");
    await context.close();
  });

  it("keeps a service key to its read-only screens", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await openPage(context);
    await signIn(page, serviceKey);
    expect(await page.getByTestId("role").textContent()).toContain("service");
    const nav = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
    expect(nav).toEqual(expect.arrayContaining(["Logs", "Traces", "Analytics", "Prompts"]));
    expect(nav).not.toContain("Virtual keys");
    expect(nav).not.toContain("Gateway keys");
    expect(await rowCount(page)).toBe(9);
    // The live tail brings in a request made after the page loaded.
    await page.getByRole("button", { name: "Live tail" }).click();
    await page.waitForURL(/live=1/);
    await openaiClient(gateway, upstream).chat.completions.create({ model: "gpt-4o-mini", user: "late-comer", messages: [{ role: "user", content: "hello late" }] });
    await gateway.flushLogs();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=logs-table] tbody tr").length === 10, null, { timeout: 8_000 });
    expect(await page.locator("[data-testid=logs-table] tbody tr").first().textContent()).toContain("late-comer");
    await page.goto(`${gateway.url}/#/virtual-keys`);
    await page.getByText("Admin key needed").waitFor();
    await page.goto(`${gateway.url}/#/prompts`);
    await page.getByText("read-only", { exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "New prompt" }).count()).toBe(0);
    await shot(page, "09-service-key");
    await context.close();
  });

  it("shows the stored config that served a request and what its cache hit saved", async () => {
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "cached answers", config: { cache: { mode: "simple", max_age: 3600 } } } });
    expect(created.status).toBe(201);
    const client = openaiClient(gateway, upstream, { "x-gateway-config": created.body.slug });
    for (let i = 0; i < 2; i += 1) await client.chat.completions.create({ model: "gpt-4o-mini", user: "frank", messages: [{ role: "user", content: "hello cache" }] });
    await gateway.flushLogs();
    const logs = (await call(gateway, "GET", "/v1/logs?user=frank")).body.data as Array<{ id: string; cache_status: string; config_id: string; config_version: number; cost_saved_usd: number | null }>;
    const hit = logs.find((log) => log.cache_status === "HIT")!;
    expect(hit.config_id).toBe(created.body.id);
    expect(hit.cost_saved_usd).toBeGreaterThan(0);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await openPage(context);
    await signIn(page, gateway.adminKey);
    await page.goto(`${gateway.url}/#/logs/${hit.id}`);
    await page.getByTestId("request-body").waitFor();
    const request = page.getByRole("region", { name: "Request", exact: true });
    expect(await request.textContent()).toContain(`Config${hit.config_id} v${hit.config_version}`);
    expect(await request.getByRole("link", { name: hit.config_id }).getAttribute("href")).toContain(`config=${hit.config_id}`);
    // The hit names the request whose answer it served.
    const source = logs.find((log) => log.cache_status === "MISS")!;
    expect(await request.textContent()).toContain(`CacheHIT from ${source.id}`);
    expect(await page.getByRole("region", { name: "Cost and timing" }).textContent()).toContain(`Saved by the cache${usd(hit.cost_saved_usd)}`);
    await shot(page, "10-cache-hit-detail");
    await context.close();
  });

  it("renders /docs from local files", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await openPage(context);
    const started = Date.now();
    await page.goto(`${gateway.url}/docs`, { waitUntil: "domcontentloaded" });
    // Scalar renders every operation: a whole-page role query would crawl, so plain DOM checks.
    await page.waitForFunction(
      () => [...document.querySelectorAll("h1")].some((heading) => heading.textContent?.includes("AI Gateway")) && document.body.textContent?.includes("Create a chat completion"),
      null,
      { timeout: 20_000, polling: 250 },
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    // No screenshot: Chromium takes seconds to paint Scalar's page of every operation.
    await context.close();
    // Nothing, on any page of this file, was asked of another origin.
    expect(outside).toEqual([]);
  });
});
