import type { IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { ECHO_ENCODINGS, encodedForms } from "./support/echo-encodings.ts";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startHostileMcpServer, type HostileMcpServer } from "./support/hostile-mcp-server.ts";
import { startRawUpstream } from "./support/raw-upstream.ts";

/**
 * An MCP server's secrets stay with it. A stored server's token (bare and as `Bearer <token>`)
 * and header values, echoed by the server in every encoding the gateway scrubs for upstream
 * keys (in a result, a tool's error, a protocol error, a listing, an HTTP error), reach neither
 * the client, nor the log, nor the model's next round. An inline server's `authorization` and
 * `headers` reach its server, and are masked everywhere a stored secret would be.
 */

let upstream: LLMock;
let gateway: RunningGateway;
let echo: HostileMcpServer;

const TOKEN = 'mcp-tok/en+v=1&"q"\\z-0123456789';
const HEADER = 'hdr-val/ue+2&"k"-9876543210';
const INLINE_TOKEN = "inline-token-5f0c1d2e3a4b";
const INLINE_HEADER = "inline-header-9a8b7c6d5e";
const MODEL = "claude-sonnet-4-5";

/** The token and header value of a request, each in every encoding, joined. */
function echoed(headers: IncomingHttpHeaders): string {
  const token = String(headers.authorization ?? "").replace(/^Bearer /, "");
  const header = String(headers["x-api-key"] ?? "");
  return Object.values(ECHO_ENCODINGS)
    .flatMap((encode) => [encode(token), encode(`Bearer ${token}`), encode(header)])
    .join(" | ");
}

/** Every form of a secret found in `value`'s strings (parsed JSON included) or in the texts. */
function leaks(secrets: string[], value: unknown, ...texts: string[]): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (typeof node === "string") texts.push(node);
    else if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === "object") Object.values(node).forEach(visit);
  };
  visit(value);
  const forms = secrets.flatMap((secret) => [...encodedForms(secret), ...encodedForms(`Bearer ${secret}`)]);
  for (const text of texts) for (const form of forms) if (text.includes(form)) found.push(form);
  return [...new Set(found)];
}

const client = () =>
  new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1` },
  });

beforeAll(async () => {
  upstream = await startUpstream();
  // Tool results first: a round after a call still ends with the user's words.
  upstream.on({ toolResultContains: "rejected" }, { content: "All three answered." });
  upstream.on({ toolResultContains: "SUM=2" }, { content: "It is 2." });
  upstream.onMessage("echo my secrets", {
    toolCalls: [
      { name: "echo_token", arguments: {} },
      { name: "fail_token", arguments: {} },
      { name: "reject_token", arguments: {} },
    ],
  });
  upstream.onMessage("add one and one", { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] });
  echo = await startHostileMcpServer({
    tools: [
      { name: "echo_token", description: (headers) => `Echoes ${echoed(headers)}`, run: (_args, headers) => ({ content: [{ type: "text", text: `Your secrets: ${echoed(headers)}` }] }) },
      { name: "fail_token", run: (_args, headers) => ({ content: [{ type: "text", text: `failed with ${echoed(headers)}` }], isError: true }) },
      { name: "reject_token", run: (_args, headers, answer) => answer.error(-32000, `rejected ${echoed(headers)}`) },
      { name: "add", run: (args) => ({ content: [{ type: "text", text: `SUM=${Number(args.a) + Number(args.b)}` }] }) },
    ],
    paths: {
      "/broken": (req, res) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(`Bad credentials: ${echoed(req.headers)}`);
      },
    },
  });
  gateway = await startGateway();
  for (const [label, url] of [
    ["echo", echo.url()],
    ["broken", echo.url("/broken")],
  ] as const) {
    const stored = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: label, server_url: url, authorization: TOKEN, headers: { "x-api-key": HEADER }, require_approval: "never" } });
    expect(stored.status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await echo?.close();
});

describe("a stored server's secrets echoed back", () => {
  it("reach neither the client, the log, the export nor the model's next round, in any encoding, answered whole or streamed", async () => {
    const tools = [{ type: "mcp", server_label: "echo" }, { type: "mcp", server_label: "broken" }] as unknown as OpenAI.Responses.Tool[];
    const requestsBefore = upstream.getRequests().length;
    const { data, response } = await client().responses.create({ model: MODEL, input: "echo my secrets", tools }).withResponse();
    // The server was sent them, and echoed them.
    expect(echo.seen.some((seen) => seen.headers.authorization === `Bearer ${TOKEN}` && seen.headers["x-api-key"] === HEADER)).toBe(true);
    expect(data.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_list_tools", "mcp_call", "mcp_call", "mcp_call", "message"]);
    const [listed, broken, echoed, failed, rejected] = data.output as unknown as Array<Record<string, any>>;
    expect(listed!.tools.find((tool: { name: string }) => tool.name === "echo_token").description).toContain("[redacted]");
    expect(broken!.error).toContain("[redacted]");
    expect(echoed).toMatchObject({ status: "completed" });
    expect(echoed!.output).toContain("[redacted]");
    expect(failed).toMatchObject({ status: "failed", error: { type: "mcp_tool_execution_error" } });
    expect(rejected).toMatchObject({ status: "failed", error: { type: "mcp_protocol_error" } });
    expect(rejected!.error.message).toContain("[redacted]");
    expect(leaks([TOKEN, HEADER], data)).toEqual([]);

    const logId = response.headers.get("x-gateway-log-id")!;
    await storedLog(gateway, logId);
    const logged = await call(gateway, "GET", `/v1/logs/${logId}`);
    expect(logged.body.tool_run.filter((step: { type: string }) => step.type === "mcp_call")).toHaveLength(3);
    expect(leaks([TOKEN, HEADER], logged.body)).toEqual([]);
    const exported = await fetch(`${gateway.url}/v1/logs/export?format=jsonl&include_bodies=true`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    expect(exported.status).toBe(200);
    expect(leaks([TOKEN, HEADER], null, await exported.text())).toEqual([]);

    const rounds = upstream.getRequests().slice(requestsBefore);
    expect(rounds).toHaveLength(2);
    expect(JSON.stringify(rounds[1]!.body)).toContain("[redacted]");
    expect(leaks([TOKEN, HEADER], rounds.map((round) => round.body))).toEqual([]);

    const stream = await client().responses.create({ model: MODEL, input: "echo my secrets", tools, stream: true });
    const events: unknown[] = [];
    for await (const event of stream) events.push(event);
    expect((events.at(-1) as { type: string }).type).toBe("response.completed");
    expect(leaks([TOKEN, HEADER], events)).toEqual([]);
  }, 30_000);
});

describe("an inline server's authorization and headers", () => {
  const inline = () => ({ type: "mcp", server_label: "mine", server_url: echo.url(), require_approval: "never", authorization: INLINE_TOKEN, headers: { "x-api-key": INLINE_HEADER } }) as unknown as OpenAI.Responses.Tool;
  const MASKED = { type: "mcp", server_label: "mine", authorization: "********", headers: { "x-api-key": "********" } };

  it("reach the server, and are masked in the response's tools, the log, the export and the kept response", async () => {
    const seenBefore = echo.seen.length;
    const { data, response } = await client().responses.create({ model: MODEL, input: "add one and one", tools: [inline()] }).withResponse();
    expect(data.output_text).toBe("It is 2.");
    const seen = echo.seen.slice(seenBefore);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.headers.authorization === `Bearer ${INLINE_TOKEN}` && request.headers["x-api-key"] === INLINE_HEADER)).toBe(true);
    expect(data.tools).toEqual([expect.objectContaining(MASKED)]);
    expect(leaks([INLINE_TOKEN, INLINE_HEADER], data)).toEqual([]);

    const logId = response.headers.get("x-gateway-log-id")!;
    await storedLog(gateway, logId);
    const logged = await call(gateway, "GET", `/v1/logs/${logId}`);
    expect(logged.body.request.body.tools).toEqual([expect.objectContaining(MASKED)]);
    expect(logged.body.response.body.tools).toEqual([expect.objectContaining(MASKED)]);
    expect(leaks([INLINE_TOKEN, INLINE_HEADER], logged.body)).toEqual([]);
    const exported = await fetch(`${gateway.url}/v1/logs/export?format=jsonl&include_bodies=true`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    const exportedText = await exported.text();
    expect(exportedText).toContain(logId);
    expect(leaks([INLINE_TOKEN, INLINE_HEADER], null, exportedText)).toEqual([]);

    let kept: { status: number; body: any } | null = null;
    for (let waited = 0; kept?.status !== 200 && waited < 40; waited += 1) {
      kept = await call(gateway, "GET", `/v1/responses/${data.id}`);
      if (kept.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(kept!.status).toBe(200);
    expect(kept!.body.tools).toEqual([expect.objectContaining(MASKED)]);
    expect(leaks([INLINE_TOKEN, INLINE_HEADER], kept!.body)).toEqual([]);
  }, 30_000);

  it("are masked in a streamed run's events, and in the log of a request an OpenAI-format upstream runs itself", async () => {
    const stream = await client().responses.create({ model: MODEL, input: "add one and one", tools: [inline()], stream: true });
    const events: Array<Record<string, any>> = [];
    for await (const event of stream) events.push(event as unknown as Record<string, any>);
    expect(events[0]!.response.tools).toEqual([expect.objectContaining(MASKED)]);
    expect(events.at(-1)!.response.tools).toEqual([expect.objectContaining(MASKED)]);
    expect(leaks([INLINE_TOKEN, INLINE_HEADER], events)).toEqual([]);

    // An OpenAI-format provider gets the inline tool as it is (it calls the server itself); the log masks it.
    const received: unknown[] = [];
    const openaiUpstream = await startRawUpstream((body, res) => {
      received.push(body);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({ id: "resp_1", object: "response", created_at: 1, status: "completed", model: "gpt-4o-mini", output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hello back.", annotations: [] }] }], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }),
      );
    });
    try {
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": openaiUpstream.url } });
      const { data, response } = await openai.responses.create({ model: "gpt-4o-mini", input: "hello inline", tools: [inline()] }).withResponse();
      expect(data.output_text).toBe("Hello back.");
      expect(received).toEqual([expect.objectContaining({ tools: [expect.objectContaining({ authorization: INLINE_TOKEN, headers: { "x-api-key": INLINE_HEADER } })] })]);
      const logId = response.headers.get("x-gateway-log-id")!;
      await storedLog(gateway, logId);
      const logged = await call(gateway, "GET", `/v1/logs/${logId}`);
      expect(logged.body.request.body.tools).toEqual([expect.objectContaining(MASKED)]);
      expect(leaks([INLINE_TOKEN, INLINE_HEADER], logged.body)).toEqual([]);
    } finally {
      await openaiUpstream.close();
    }
  }, 30_000);
});
