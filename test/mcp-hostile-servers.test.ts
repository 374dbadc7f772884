import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startHostileMcpServer, startSilentPort, type HostileMcpServer } from "./support/hostile-mcp-server.ts";

/**
 * MCP servers that do not play by the rules, through the real gateway and the official client:
 * one that never answers, one whose older transport never names its endpoint, one that sends a
 * 200 MB result or 40,000 tools, one that redirects within its own origin; and requests that
 * ask too much of them. Every run ends within its deadlines, with a log record, and holds no
 * more than its bounds.
 */

let upstream: LLMock;
let gateway: RunningGateway;
let hostile: HostileMcpServer;
let silent: Awaited<ReturnType<typeof startSilentPort>>;
/** An older server: its POST fails, its event stream opens and never names an endpoint. */
let endless: Server;
let endlessUrl: string;

const anthropic = (target: RunningGateway) => ({ "x-gateway-api-key": target.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1` });
const client = (target: RunningGateway = gateway) => new OpenAI({ baseURL: `${target.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, timeout: 60_000, defaultHeaders: anthropic(target) });
const inline = (url: string, extra: Record<string, unknown> = {}) => ({ type: "mcp", server_label: "hostile", server_url: url, require_approval: "never", ...extra }) as unknown as OpenAI.Responses.Tool;
const MODEL = "claude-sonnet-4-5";

const logOf = async (target: RunningGateway, logId: string) => {
  for (let waited = 0; waited < 100; waited += 1) {
    const record = await storedLog(target, logId).catch(() => null);
    if (record) return record;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no log record ${logId}`);
};

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.on({ toolResultContains: "truncated by the gateway" }, { content: "A long answer, cut." });
  upstream.on({ toolResultContains: "GATEWAY_MCP_MAX_MESSAGE_BYTES" }, { content: "The answer was too big." });
  upstream.on({ toolResultContains: "not run" }, { content: "Added some." });
  upstream.on({ toolResultContains: "SUM=" }, { content: "Added." });
  upstream.onMessage("what can you do", { content: "Nothing much without tools." });
  upstream.onMessage("send me everything", { toolCalls: [{ name: "huge", arguments: {} }] });
  upstream.onMessage("send me pieces", { toolCalls: [{ name: "pieces", arguments: {} }] });
  upstream.onMessage("add all the things", { toolCalls: Array.from({ length: 300 }, (_, index) => ({ name: "add", arguments: { a: index, b: 1 } })) });
  hostile = await startHostileMcpServer({
    tools: [
      { name: "huge", run: (_args, _headers, answer) => answer.streamText(200 * 1024 * 1024) },
      // 100,000 short parts: no long string to cut, 3.4 MB in one message.
      { name: "pieces", run: () => ({ content: Array.from({ length: 100_000 }, () => ({ type: "text", text: "piece" })) }) },
      { name: "add", run: (args) => ({ content: [{ type: "text", text: `SUM=${Number(args.a) + Number(args.b)}` }] }) },
    ],
    paths: {
      // 40,000 tools over 20 pages.
      "/many": (req, res, rpc) => {
        if (rpc?.method !== "tools/list") return false;
        const page = Number(rpc.params?.cursor ?? 0);
        const tools = Array.from({ length: 2000 }, (_, index) => ({ name: `tool_${page}_${index}`, description: "d".repeat(200), inputSchema: { type: "object", properties: {} } }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: { tools, ...(page < 19 && { nextCursor: String(page + 1) }) } }));
      },
      // 100 tools on one page.
      "/hundred": (req, res, rpc) => {
        if (rpc?.method !== "tools/list") return false;
        const tools = Array.from({ length: 100 }, (_, index) => ({ name: `hundred_${index}`, description: "h", inputSchema: { type: "object", properties: {} } }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: { tools } }));
      },
      // A redirect within the server's own origin, to a path that answers as an MCP server would.
      "/moved": (req, res) => {
        res.writeHead(307, { location: "/mcp" }).end();
      },
    },
  });
  silent = await startSilentPort();
  endless = createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(": no endpoint, ever\n\n");
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve));
  endlessUrl = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/sse`;
  gateway = await startGateway({ GATEWAY_MCP_CALL_TIMEOUT_MS: 400, GATEWAY_MCP_RUN_TIMEOUT_MS: 30_000, GATEWAY_MCP_MAX_CALLS_PER_ROUND: 5 });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await hostile?.close();
  await silent?.close();
  endless?.closeAllConnections();
  await new Promise((resolve) => endless?.close(resolve));
});

describe("an MCP server that never answers holds no request past the deadlines", () => {
  it.each([
    ["a TCP port that accepts and never answers", () => silent.url],
    ["a server whose POST fails and whose event stream never names its endpoint", () => endlessUrl],
  ])("%s: the listing fails within the call deadline, the model answers, the log has the row", async (_name, url) => {
    const started = Date.now();
    const { data, response } = await client().responses.create({ model: MODEL, input: "what can you do", tools: [inline(url())] }).withResponse();
    expect(Date.now() - started).toBeLessThan(5_000);
    const listed = data.output.find((item) => item.type === "mcp_list_tools") as unknown as { error?: string; tools: unknown[] };
    expect(listed.error).toMatch(/timed out after 400 ms/);
    expect(listed.tools).toEqual([]);
    expect(data.output_text).toBe("Nothing much without tools.");
    const record = await logOf(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.status).toBe(200);
    expect(record.toolRun[0]).toMatchObject({ type: "mcp_list_tools", server_label: "hostile" });
    expect(record.toolRun[0]!.error).toMatch(/timed out/);
  }, 30_000);

  it("ends the run when the client leaves during the listing: the record is 499 at once, whatever the call deadline", async () => {
    const patient = await startGateway({ GATEWAY_MCP_CALL_TIMEOUT_MS: 60_000, GATEWAY_MCP_RUN_TIMEOUT_MS: 120_000 });
    try {
      const controller = new AbortController();
      const answered = client(patient)
        .responses.create({ model: MODEL, input: "what can you do", tools: [inline(endlessUrl)] }, { signal: controller.signal })
        .catch((error: unknown) => error);
      // The gateway is waiting on the event stream's endpoint when the client leaves.
      await new Promise((resolve) => setTimeout(resolve, 400));
      controller.abort();
      await answered;
      const aborted = Date.now();
      // The only request this gateway served: its record, found by listing (the log id never reached the client).
      let record: { status: number } | null = null;
      for (let waited = 0; !record && waited < 60; waited += 1) {
        await patient.flushLogs();
        const listed = await call(patient, "GET", "/v1/logs?limit=5");
        record = (listed.body.data as Array<{ status: number }>)[0] ?? null;
        if (!record) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(record?.status).toBe(499);
      expect(Date.now() - aborted).toBeLessThan(3_000);
    } finally {
      await patient.close();
    }
  }, 30_000);

  it("does not hold SIGTERM's drain: the run's deadline ends the request, answered 408, and the drain finishes", async () => {
    const draining = await startGateway({ GATEWAY_MCP_CALL_TIMEOUT_MS: 60_000, GATEWAY_MCP_RUN_TIMEOUT_MS: 1_000, GATEWAY_SHUTDOWN_TIMEOUT_MS: 20_000 });
    try {
      const answered = client(draining)
        .responses.create({ model: MODEL, input: "what can you do", tools: [inline(endlessUrl)] })
        .then(
          () => 200,
          (error: unknown) => (error as { status?: number }).status,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      const { drained } = await draining.gateway.drain();
      expect(drained).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await answered).toBe(408);
    } finally {
      await draining.close();
    }
  }, 40_000);
});

describe("what an MCP server sends is cut where it is read", () => {
  it("reads a 200 MB tool result as a stream: the model gets the first GATEWAY_MCP_MAX_RESULT_BYTES and a note, memory stays flat", async () => {
    const roomy = await startGateway({ GATEWAY_MCP_CALL_TIMEOUT_MS: 30_000 });
    // A first run warms what any run loads (the MCP SDK, the provider's transforms).
    await client(roomy).responses.create({ model: MODEL, input: "what can you do", tools: [inline(hostile.url())] });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    try {
      const data = await client(roomy).responses.create({ model: MODEL, input: "send me everything", tools: [inline(hostile.url())] });
      const called = data.output.find((item) => item.type === "mcp_call") as unknown as { output: string; status: string; error: unknown };
      expect(called.status, JSON.stringify(called.error)).toBe("completed");
      expect(called.output.startsWith("x".repeat(65536))).toBe(true);
      expect(called.output.endsWith(`[truncated by the gateway: 65536 of ${200 * 1024 * 1024} bytes]`)).toBe(true);
      expect(data.output_text).toBe("A long answer, cut.");
    } finally {
      clearInterval(sampler);
      await roomy.close();
    }
    // Read whole, the result alone would take 200 MB as bytes and as much again as text.
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  }, 60_000);

  it("fails a call whose one message holds more than GATEWAY_MCP_MAX_MESSAGE_BYTES, with an error saying so", async () => {
    const small = await startGateway({ GATEWAY_MCP_MAX_MESSAGE_BYTES: 256 * 1024 });
    try {
      const data = await client(small).responses.create({ model: MODEL, input: "send me pieces", tools: [inline(hostile.url())] });
      const called = data.output.find((item) => item.type === "mcp_call") as unknown as { status: string; error: { type: string; message: string } };
      expect(called.status).toBe("failed");
      expect(called.error.type).toBe("mcp_protocol_error");
      expect(called.error.message).toContain("more than 262144 bytes");
      expect(data.output_text).toBe("The answer was too big.");
    } finally {
      await small.close();
    }
  }, 30_000);

  it("offers the model at most GATEWAY_MCP_MAX_TOOLS tools of a 40,000-tool listing, reads no further, and says where it was cut", async () => {
    const seenBefore = hostile.seen.length;
    const requestsBefore = upstream.getRequests().length;
    const data = await client().responses.create({ model: MODEL, input: "what can you do", tools: [inline(hostile.url("/many"))] });
    const listed = data.output.find((item) => item.type === "mcp_list_tools") as unknown as { error?: string; tools: unknown[] };
    expect(listed.tools.length).toBeLessThanOrEqual(128);
    expect(listed.tools.length).toBeGreaterThan(0);
    expect(listed.error).toMatch(/at most 128 tools and 262144 bytes/);
    // The first page was enough: the other 19 were never asked for.
    expect(hostile.seen.slice(seenBefore).filter((seen) => seen.rpc?.includes('"tools/list"'))).toHaveLength(1);
    const sent = upstream.getRequests().slice(requestsBefore);
    expect(sent).toHaveLength(1);
    const offered = (sent[0]!.body as { tools?: unknown[] }).tools ?? [];
    expect(offered.length).toBe(listed.tools.length);
    expect(JSON.stringify(sent[0]!.body).length).toBeLessThan(400 * 1024);
  }, 30_000);

  it("bounds the tools offered over all the request's servers, in the request's order", async () => {
    const requestsBefore = upstream.getRequests().length;
    const servers = [inline(hostile.url("/hundred"), { server_label: "first" }), inline(hostile.url("/hundred"), { server_label: "second" })];
    const data = await client().responses.create({ model: MODEL, input: "what can you do", tools: servers });
    const [first, second] = data.output.filter((item) => item.type === "mcp_list_tools") as unknown as Array<{ server_label: string; error?: string; tools: unknown[] }>;
    expect([first!.server_label, first!.tools.length, first!.error]).toEqual(["first", 100, undefined]);
    expect([second!.server_label, second!.tools.length]).toEqual(["second", 28]);
    expect(second!.error).toMatch(/28 tools .* are offered; a request is offered at most 128 tools/);
    const sent = upstream.getRequests().slice(requestsBefore);
    expect(((sent[0]!.body as { tools?: unknown[] }).tools ?? []).length).toBe(128);
  });
});

describe("what a request may ask of its MCP servers", () => {
  it("refuses an inline server's headers that the transport sets itself, as a stored server's are", async () => {
    const before = hostile.seen.length;
    for (const name of ["Host", "Mcp-Session-Id", "content-length"]) {
      const refused = await client()
        .responses.create({ model: MODEL, input: "what can you do", tools: [inline(hostile.url(), { headers: { [name]: "x" } })] })
        .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect([(refused as InstanceType<typeof OpenAI.APIError>).status, ((refused as InstanceType<typeof OpenAI.APIError>).error as { param?: string }).param]).toEqual([400, "tools.0.headers"]);
    }
    expect(hostile.seen.length).toBe(before);
  });

  it("refuses a redirect within the server's own origin: the bearer token is not carried to it", async () => {
    const before = hostile.seen.length;
    const token = "redirect-token-0123456789";
    const data = await client().responses.create({ model: MODEL, input: "what can you do", tools: [inline(hostile.url("/moved"), { authorization: token })] });
    const listed = data.output.find((item) => item.type === "mcp_list_tools") as unknown as { error?: string };
    expect(listed.error).toMatch(/redirect/i);
    const seen = hostile.seen.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.path === "/moved")).toBe(true);
  });

  it("runs no more calls than max_tool_calls asks, and no more than GATEWAY_MCP_MAX_CALLS_PER_ROUND in a round", async () => {
    const before = hostile.calls.length;
    // `max_tool_calls` as OpenAI's API takes it (this client's types do not name it yet).
    const withMax = { model: MODEL, input: "add all the things", max_tool_calls: 2, tools: [inline(hostile.url())] } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    const capped = await client().responses.create(withMax);
    expect(hostile.calls.length - before).toBe(2);
    expect(capped.output.filter((item) => item.type === "mcp_call")).toHaveLength(2);

    const middle = hostile.calls.length;
    const { data, response } = await client().responses.create({ model: MODEL, input: "add all the things", tools: [inline(hostile.url())] }).withResponse();
    expect(hostile.calls.length - middle).toBe(5);
    expect(data.output.filter((item) => item.type === "mcp_call")).toHaveLength(5);
    const record = await logOf(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.toolRun.filter((step) => step.type === "mcp_call")).toHaveLength(5);
  }, 30_000);

  it("refuses a request naming more MCP servers than GATEWAY_MCP_MAX_SERVERS with a 400, before connecting to any", async () => {
    const before = hostile.seen.length;
    const started = Date.now();
    const tools = Array.from({ length: 1500 }, (_, index) => inline(hostile.url(), { server_label: `s${index}` }));
    const refused = await client()
      .responses.create({ model: MODEL, input: "what can you do", tools })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    const error = refused as InstanceType<typeof OpenAI.APIError>;
    expect([error.status, (error.error as { param?: string }).param]).toEqual([400, "tools"]);
    expect(error.message).toMatch(/1500 MCP servers.*at most 16/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hostile.seen.length).toBe(before);
  });
});
