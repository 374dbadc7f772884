import type { LLMock } from "@copilotkit/aimock";
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";
import { startSdkMcpServer, type SdkMcpServer } from "./support/sdk-mcp-server.ts";

/**
 * An agent's model call and its tool calls through the MCP gateway, sharing one trace, in the
 * dashboard's logs and trace views in Debian's Chromium. Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";
const TRACE = "agent-with-tools";

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;
let server: SdkMcpServer;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser, server] = await Promise.all([startUpstream(), startGateway(), launchChromium(), startSdkMcpServer({ name: "tools" })]);
  upstream.onMessage("plan", { content: "call add" });
  await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "tools", server_url: server.url } });
  await openaiClient(gateway, upstream, { "x-gateway-trace-id": TRACE }).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plan" }] });
  const client = new Client({ name: "agent", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/tools`), { requestInit: { headers: { authorization: `Bearer ${gateway.adminKey}`, "x-gateway-trace-id": TRACE } } }));
  await client.callTool({ name: "add", arguments: { a: 2, b: 2 } });
  await client.close();
  await gateway.flushLogs();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
  await server?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${gateway.url}/`);
  await page.getByLabel("Gateway key").fill(gateway.adminKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

describe("tool calls beside model calls in the dashboard", () => {
  it("shows the agent's tool calls in its trace, each named by method and server, after its model call", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page);
    await page.goto(`${gateway.url}/#/traces/${TRACE}`);
    await page.locator("[data-testid=span]").nth(2).waitFor();
    const labels = await page.locator("[data-testid=span] .span-name").allTextContents();
    expect(labels).toEqual(["createChatCompletion", "initialize · mcp:tools", "tools/call · mcp:tools"]);
    expect(await page.locator("[data-testid=span]").nth(2).textContent()).toContain("add");
    await page.screenshot({ path: `${ARTIFACTS}/40-trace-with-tool-calls.png`, fullPage: true });
  });

  it("tags tool calls in the logs list, with the server as provider and the tool as model", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page);
    await page.goto(`${gateway.url}/#/logs`);
    const toolRow = page.locator("tbody tr", { hasText: "mcp:tools" }).filter({ hasText: "add" });
    await toolRow.waitFor();
    expect(await toolRow.locator(".tag", { hasText: "tool" }).count()).toBe(1);
    expect(await page.locator("tbody tr", { hasText: "gpt-4o-mini" }).locator(".tag", { hasText: "tool" }).count()).toBe(0);
  });
});
