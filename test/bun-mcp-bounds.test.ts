import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startUpstream, UPSTREAM_KEY } from "./support/harness.ts";
import { startHostileMcpServer, type HostileMcpServer } from "./support/hostile-mcp-server.ts";

/**
 * A tool run's bounds under the runtime users run (`npm start`, Bun): an older server whose event
 * stream never names its endpoint fails the listing within the call deadline, a same-origin
 * redirect is refused, and a 200 MB result is cut as it is read, the process's memory flat.
 */

const databaseUrl = sqliteTestUrl();
let upstream: LLMock;
let gateway: BunGateway;
let hostile: HostileMcpServer;
let endless: Server;
let endlessUrl: string;

const MODEL = "claude-sonnet-4-5";
const inline = (url: string, extra: Record<string, unknown> = {}) => ({ type: "mcp", server_label: "hostile", server_url: url, require_approval: "never", ...extra }) as unknown as OpenAI.Responses.Tool;
const client = () =>
  new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    timeout: 60_000,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1` },
  });

/** The resident memory of a process, from Linux's `/proc`. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((entry) => entry.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) * 1024;
}

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.on({ toolResultContains: "truncated by the gateway" }, { content: "A long answer, cut." });
  upstream.onMessage("what can you do", { content: "Nothing much without tools." });
  upstream.onMessage("send me everything", { toolCalls: [{ name: "huge", arguments: {} }] });
  hostile = await startHostileMcpServer({
    tools: [{ name: "huge", run: (_args, _headers, answer) => answer.streamText(200 * 1024 * 1024) }],
    paths: { "/moved": (_req, res) => void res.writeHead(307, { location: "/mcp" }).end() },
  });
  endless = createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": no endpoint, ever\n\n");
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve));
  endlessUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/sse`;
  gateway = await startBunGateway(databaseUrl, { GATEWAY_MCP_CALL_TIMEOUT_MS: "3000" });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
  await hostile?.close();
  endless?.closeAllConnections();
  await new Promise((resolve) => endless?.close(resolve));
  await removeSqliteTestDatabase(databaseUrl);
});

describe("a tool run's bounds under npm start (Bun)", () => {
  it("fails the listing of a server whose stream never names its endpoint within the call deadline", async () => {
    const started = Date.now();
    const data = await client().responses.create({ model: MODEL, input: "what can you do", tools: [inline(endlessUrl)] });
    expect(Date.now() - started).toBeLessThan(8_000);
    const listed = data.output.find((item) => item.type === "mcp_list_tools") as unknown as { error?: string };
    expect(listed.error).toMatch(/timed out after 3000 ms/);
    expect(data.output_text).toBe("Nothing much without tools.");
  }, 30_000);

  it("refuses a redirect within the server's origin", async () => {
    const before = hostile.seen.length;
    const data = await client().responses.create({ model: MODEL, input: "what can you do", tools: [inline(hostile.url("/moved"), { authorization: "bun-redirect-token-0123" })] });
    const listed = data.output.find((item) => item.type === "mcp_list_tools") as unknown as { error?: string };
    expect(listed.error).toMatch(/redirect/i);
    expect(hostile.seen.slice(before).every((seen) => seen.path === "/moved")).toBe(true);
  }, 30_000);

  it("cuts a 200 MB result as it is read, the gateway's memory flat", async () => {
    const pid = gateway.child.pid!;
    // A first run loads what every run loads.
    await client().responses.create({ model: MODEL, input: "what can you do", tools: [inline(hostile.url())] });
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    try {
      const data = await client().responses.create({ model: MODEL, input: "send me everything", tools: [inline(hostile.url())] });
      const called = data.output.find((item) => item.type === "mcp_call") as unknown as { output: string; status: string; error: unknown };
      expect(called.status, JSON.stringify(called.error)).toBe("completed");
      expect(called.output.endsWith(`[truncated by the gateway: 65536 of ${200 * 1024 * 1024} bytes]`)).toBe(true);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  }, 60_000);
});
