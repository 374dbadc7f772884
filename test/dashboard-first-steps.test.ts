import type { LLMock } from "@copilotkit/aimock";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium.ts";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/**
 * A person's first minutes with the dashboard, in Chromium against a gateway with no requests
 * yet: the sign-in card says where a key comes from, the page has an icon, the empty logs page
 * says how to send a first request, and views and filters stay in the address through reload
 * and back/forward.
 */
let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;

beforeAll(async () => {
  [upstream, gateway, browser] = await Promise.all([startUpstream(), startGateway(), launchChromium()]);
  upstream.onMessage("hello", { content: "Hi there!" });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.getByLabel("Gateway key").fill(gateway.adminKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

describe("the dashboard for a first visit", () => {
  it("says on the sign-in card where the admin key is printed and how to make a service key, and shows an icon", async () => {
    const page = await browser.newPage();
    const icons: { url: string; status: number; type: string | null }[] = [];
    page.on("response", (response) => {
      if (/\/favicon\.(svg|ico)$/.test(response.url())) icons.push({ url: response.url(), status: response.status(), type: response.headers()["content-type"] ?? null });
    });
    await page.goto(`${gateway.url}/`);
    const card = page.locator("form.card");
    await card.getByText("Where do I find a key?").waitFor();
    const text = await card.textContent();
    expect(text).toContain("First start: created an admin gateway key");
    expect(text).toContain("npm start");
    expect(text).toContain("GATEWAY_ADMIN_KEY");
    const command = await page.getByTestId("service-key-command").textContent();
    expect(command).toContain(`curl -X POST ${gateway.url}/v1/api-keys`);
    expect(command).toContain('"role":"service"');
    await page.waitForFunction(() => document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href.endsWith("/favicon.svg"));
    await expect.poll(() => icons.filter((icon) => icon.status === 200 && icon.type?.startsWith("image/svg+xml")).length, { timeout: 5_000 }).toBeGreaterThan(0);
    // Where browsers look without a link.
    const ico = await fetch(`${gateway.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(await ico.text()).toContain("<svg");
    // The service key command, as shown, works.
    const created = await call(gateway, "POST", "/v1/api-keys", { body: JSON.parse(/-d '(.*)'/.exec(command!)![1]!) });
    expect(created.status).toBe(201);
    expect(created.body.role).toBe("service");
    await page.close();
  });

  it("shows an empty logs page how to send a first request, then lists it once sent", async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/`);
    await signIn(page);
    const first = page.getByTestId("first-request");
    await first.waitFor();
    expect(await page.getByRole("heading", { name: "No requests yet" }).count()).toBe(1);
    const command = await first.textContent();
    expect(command).toContain(`curl ${gateway.url}/v1/chat/completions`);
    expect(command).toContain("x-gateway-api-key: $GATEWAY_KEY");
    expect(command).not.toContain(gateway.adminKey);
    expect(await page.locator(".first-request").textContent()).toContain("x-gateway-custom-host: http://127.0.0.1:11434/v1");

    await openaiClient(gateway, upstream).chat.completions.create({ model: "gpt-4o-mini", user: "alice", messages: [{ role: "user", content: "hello" }] });
    await gateway.flushLogs();
    await page.reload();
    await page.getByTestId("logs-table").waitFor();
    expect(await page.locator("[data-testid=logs-table] tbody tr").count()).toBe(1);
    expect(await page.getByTestId("first-request").count()).toBe(0);
    // A filter that matches nothing says so, not how to send a first request.
    await page.goto(`${gateway.url}/#/logs?user=nobody`);
    await page.getByText("No requests match these filters").waitFor();
    expect(await page.getByTestId("first-request").count()).toBe(0);
    await page.close();
  });

  it("keeps the view and its filters in the address through reload, back and forward", async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/`);
    await signIn(page);
    await page.goto(`${gateway.url}/#/logs?user=alice`);
    await page.getByTestId("logs-table").waitFor();
    await page.reload();
    await page.getByTestId("logs-table").waitFor();
    expect(page.url()).toContain("#/logs?user=alice");
    expect(await page.getByLabel("End user").inputValue()).toBe("alice");

    await page.getByRole("link", { name: "Virtual keys" }).click();
    await page.waitForURL(/#\/virtual-keys/);
    await page.goBack();
    await page.waitForURL(/#\/logs\?user=alice$/);
    await page.getByTestId("logs-table").waitFor();
    expect(await page.getByLabel("End user").inputValue()).toBe("alice");
    await page.goForward();
    await page.waitForURL(/#\/virtual-keys/);
    await page.getByRole("heading", { name: "Virtual keys" }).waitFor();
    await page.close();
  });
});
