import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startMcpServer, startSseMcpServer, type TestMcpServer } from "./support/mcp-server.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./support/otlp-receiver.ts";

let gateway: RunningGateway;
let upstream: LLMock;
let tools: TestMcpServer;
let trap: TestMcpServer;
let receiver: OtlpReceiver;

const TOKEN = "mcp-token-0123456789abcdef";

/** Each provider the gateway drives the tool loop for, as the official client reaches it. */
const PROVIDERS: Record<string, { model: string; headers: () => Record<string, string> }> = {
  anthropic: { model: "claude-sonnet-4-5", headers: () => ({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1` }) },
  gemini: { model: "gemini-2.5-flash", headers: () => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${upstream.url}/v1beta` }) },
  bedrock: {
    model: "anthropic.claude-3-5-haiku-20241022-v1:0",
    headers: () => ({
      "x-gateway-provider": "bedrock",
      "x-gateway-custom-host": upstream.url,
      "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
      "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY",
      "x-gateway-aws-region": "us-east-1",
    }),
  },
};

function client(provider: string): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...PROVIDERS[provider]!.headers() },
  });
}

beforeAll(async () => {
  upstream = await startUpstream();
  // Tool results first: a round after a call still ends with the user's words.
  upstream.on({ toolResultContains: "SUM=5" }, { content: "The sum is 5.", usage: { input_tokens: 40, output_tokens: 6 } });
  upstream.on({ toolResultContains: "boom" }, { content: "The tool failed." });
  upstream.on({ toolResultContains: "deleted notes.txt" }, { content: "Done, the file is gone." });
  upstream.on({ toolResultContains: "did not approve" }, { content: "I left the file alone." });
  upstream.on({ toolResultContains: "timed out" }, { content: "The nap took too long." });
  upstream.on({ toolResultContains: "truncated by the gateway" }, { content: "The result was cut." });
  upstream.onMessage("take a long nap", { toolCalls: [{ name: "nap", arguments: { ms: 3000 } }] });
  upstream.onMessage("make it big", { toolCalls: [{ name: "big", arguments: { bytes: 5000 } }] });
  upstream.onMessage("loop forever", { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] });
  upstream.onMessage("add two and three", { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }], usage: { input_tokens: 30, output_tokens: 10 } });
  upstream.onMessage("make it explode", { toolCalls: [{ name: "explode", arguments: {} }] });
  upstream.onMessage("delete the notes", { toolCalls: [{ name: "delete_file", arguments: { path: "notes.txt" } }] });
  tools = await startMcpServer();
  trap = await startMcpServer();
  receiver = await startOtlpReceiver();
  gateway = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "mcp-under-test" });
  const stored = await call(gateway, "POST", "/v1/mcp-servers", {
    body: { server_label: "calc", server_url: tools.url, authorization: TOKEN, require_approval: { always: { tool_names: ["delete_file"] } } },
  });
  expect(stored.status).toBe(201);
  openaiContractProblems("Response", {});
  openaiContractProblems("ResponseStreamEvent", {});
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await tools?.close();
  await trap?.close();
  await receiver?.close();
});

const MCP_TOOL = { type: "mcp", server_label: "calc" } as unknown as OpenAI.Responses.Tool;

describe.each(Object.keys(PROVIDERS))("an MCP server's tools on %s, run by the gateway", (provider) => {
  const { model } = PROVIDERS[provider]!;

  it("lists the tools, calls the one the model picks, feeds its result back, and answers with the MCP items; the log holds each step", async () => {
    const callsBefore = tools.calls.length;
    const { data, response } = await client(provider).responses.create({ model, input: "add two and three", tools: [MCP_TOOL] }).withResponse();
    expect(openaiContractProblems("Response", data), JSON.stringify(data)).toEqual([]);
    expect(data.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    const [listed, called, message] = data.output as unknown as [Record<string, any>, Record<string, any>, OpenAI.Responses.ResponseOutputMessage];
    expect(listed.server_label).toBe("calc");
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(["add", "explode", "delete_file", "nap", "big"]);
    expect(called).toMatchObject({ server_label: "calc", name: "add", output: "SUM=5", error: null, status: "completed" });
    expect(JSON.parse(called.arguments)).toEqual({ a: 2, b: 3 });
    expect(data.output_text).toBe("The sum is 5.");
    expect(tools.calls.slice(callsBefore)).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
    // The stored token reached its server.
    expect(tools.requests.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.toolRun.map((step) => [step.type, step.round, step.server_label, step.tool, step.error])).toEqual([
      ["mcp_list_tools", 0, "calc", null, null],
      ["model", 0, null, null, null],
      ["mcp_call", 0, "calc", "add", null],
      ["model", 1, null, null, null],
    ]);
    expect(record.toolRun[2]).toMatchObject({ arguments: '{"a":2,"b":3}', output: "SUM=5" });
    // Tokens over both rounds are summed and priced.
    expect(record.promptTokens).toBe(record.toolRun.filter((step) => step.type === "model").reduce((sum, step) => sum + (step.input_tokens ?? 0), 0));
    expect(record.promptTokens).toBeGreaterThan(30);
    expect(record.costUsd).toBeGreaterThan(0);

    // The trace has one span per listing and per call, under the request's span.
    await gateway.gateway.telemetry.tracing!.flush();
    const logId = response.headers.get("x-gateway-log-id")!;
    const spans = await receiver.waitFor((all) => all.some((span) => span.attributes["gateway.log_id"] === logId));
    const server = spans.find((span) => span.attributes["gateway.log_id"] === logId)!;
    const toolSpans = spans.filter((span) => span.parentSpanId === server.spanId && span.kind === 1).map((span) => [span.name, span.attributes["gateway.mcp.server_label"]]);
    expect(toolSpans).toEqual([["mcp_list_tools calc", "calc"], ["execute_tool add", "calc"]]);
  });
  it("streams the run as typed events in order: the listing, the call, then the answer", async () => {
    const stream = await client(provider).responses.create({ model, input: "add two and three", tools: [MCP_TOOL], stream: true });
    const events: Array<Record<string, any>> = [];
    for await (const event of stream) events.push(event as unknown as Record<string, any>);
    for (const event of events) expect(openaiContractProblems("ResponseStreamEvent", event), JSON.stringify(event)).toEqual([]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(["response.created", "response.in_progress"]);
    const at = (type: string) => types.indexOf(type);
    expect(at("response.mcp_list_tools.completed")).toBeGreaterThan(1);
    expect(at("response.mcp_call.in_progress")).toBeGreaterThan(at("response.mcp_list_tools.completed"));
    expect(at("response.mcp_call_arguments.done")).toBeGreaterThan(at("response.mcp_call.in_progress"));
    expect(at("response.mcp_call.completed")).toBeGreaterThan(at("response.mcp_call_arguments.done"));
    expect(at("response.output_text.delta")).toBeGreaterThan(at("response.mcp_call.completed"));
    expect(types.at(-1)).toBe("response.completed");
    const done = events.filter((event) => event.type === "response.output_item.done").map((event) => event.item.type);
    expect(done).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    const completed = events.at(-1)!.response;
    expect(completed.output.map((item: { type: string }) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect(completed.output[1]).toMatchObject({ name: "add", output: "SUM=5" });
    expect(completed.usage.total_tokens).toBeGreaterThan(0);
  });

  it("reports a failing tool as the call's error, feeds the error to the model, and logs it", async () => {
    const { data, response } = await client(provider).responses.create({ model, input: "make it explode", tools: [MCP_TOOL] }).withResponse();
    const called = data.output.find((item) => item.type === "mcp_call") as unknown as Record<string, any>;
    expect(called).toMatchObject({ name: "explode", output: null, status: "failed", error: { type: "mcp_tool_execution_error" } });
    expect(data.output_text).toBe("The tool failed.");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    const step = record.toolRun.find((entry) => entry.type === "mcp_call")!;
    expect(step).toMatchObject({ tool: "explode", server_label: "calc" });
    expect(step.error).toContain("boom");
  });

  it("asks for approval where the stored policy says so, and runs the call once the client approves it", async () => {
    const callsBefore = tools.calls.length;
    const first = await client(provider).responses.create({ model, input: "delete the notes", tools: [MCP_TOOL] });
    const request = first.output.find((item) => item.type === "mcp_approval_request") as unknown as Record<string, any>;
    expect(request).toMatchObject({ server_label: "calc", name: "delete_file" });
    expect(JSON.parse(request.arguments)).toEqual({ path: "notes.txt" });
    expect(tools.calls.length).toBe(callsBefore);

    let follow: OpenAI.Responses.Response | null = null;
    for (let waited = 0; !follow && waited < 40; waited += 1) {
      follow = await client(provider)
        .responses.create({
          model,
          previous_response_id: first.id,
          tools: [MCP_TOOL],
          input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true } as unknown as OpenAI.Responses.ResponseInputItem],
        })
        .catch(async (error: unknown) => {
          // The kept response lands off the request path: a follow-up may come a moment early.
          if ((error as { status?: number }).status !== 400) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
          return null;
        });
    }
    expect(follow!.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
    expect(follow!.output[0]).toMatchObject({ name: "delete_file", output: "deleted notes.txt", approval_request_id: request.id });
    expect(follow!.output_text).toBe("Done, the file is gone.");
    expect(tools.calls.slice(callsBefore)).toEqual([{ name: "delete_file", arguments: { path: "notes.txt" } }]);
  });
});

describe("a stored server's tools on an OpenAI-format upstream, run by the gateway", () => {
  it("asks each round for the JSON it reads itself, whatever Accept the streaming client sent", async () => {
    const before = upstream.getRequests().length;
    const openai = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: UPSTREAM_KEY,
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` },
    });
    const stream = await openai.responses.create({ model: "gpt-4o-mini", input: "add two and three", tools: [MCP_TOOL], stream: true }, { headers: { Accept: "text/event-stream" } });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toContain("response.mcp_call.completed");
    expect(types.at(-1)).toBe("response.completed");
    const rounds = upstream.getRequests().slice(before).filter((request) => request.path === "/v1/responses");
    expect(rounds.length).toBe(2);
    expect(rounds.map((round) => round.headers.accept)).toEqual(["application/json", "application/json"]);
  });
});

describe("what a request may ask of MCP servers", () => {
  it("reaches a server that speaks only the older HTTP+SSE transport", async () => {
    const old = await startSseMcpServer();
    try {
      const inline = { type: "mcp", server_label: "legacy", server_url: old.url, require_approval: "never", headers: { "x-team": "blue" } } as unknown as OpenAI.Responses.Tool;
      const data = await client("gemini").responses.create({ model: "gemini-2.5-flash", input: "add two and three", tools: [inline] });
      expect(data.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
      expect(data.output_text).toBe("The sum is 5.");
      expect(old.calls).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
      expect(old.requests.every((headers) => headers["x-team"] === "blue")).toBe(true);
    } finally {
      await old.close();
    }
  });

  it("sends a stored server's token only to its own URL: an inline tool under its label reaches the trap without it", async () => {
    const before = trap.requests.length;
    const inline = { type: "mcp", server_label: "calc", server_url: trap.url, require_approval: "never" } as unknown as OpenAI.Responses.Tool;
    const data = await client("anthropic").responses.create({ model: "claude-sonnet-4-5", input: "add two and three", tools: [inline] });
    expect(data.output_text).toBe("The sum is 5.");
    const seen = trap.requests.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((headers) => JSON.stringify(headers).includes(TOKEN))).toHaveLength(0);
  });

  it("refuses headers for a stored server, an unknown label and a private server URL with 400s naming the tool's field", async () => {
    const ask = (tool: Record<string, unknown>) =>
      client("anthropic")
        .responses.create({ model: "claude-sonnet-4-5", input: "add two and three", tools: [tool as unknown as OpenAI.Responses.Tool] })
        .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    const headers = (await ask({ type: "mcp", server_label: "calc", headers: { authorization: "Bearer mine" } })) as InstanceType<typeof OpenAI.APIError>;
    expect([headers.status, (headers.error as { param?: string }).param]).toEqual([400, "tools.0.headers"]);
    const unknown = (await ask({ type: "mcp", server_label: "nope" })) as InstanceType<typeof OpenAI.APIError>;
    expect([unknown.status, (unknown.error as { param?: string }).param]).toEqual([400, "tools.0.server_label"]);
    const privateUrl = (await ask({ type: "mcp", server_label: "x", server_url: "http://10.0.0.7/mcp" })) as InstanceType<typeof OpenAI.APIError>;
    expect([privateUrl.status, (privateUrl.error as { param?: string }).param]).toEqual([400, "tools.0.server_url"]);
    // The gateway keeps serving.
    expect((await client("anthropic").responses.create({ model: "claude-sonnet-4-5", input: "add two and three", tools: [MCP_TOOL] })).output_text).toBe("The sum is 5.");
  });
});

describe("guardrails around a tool run", () => {
  it("judges the user's input before any server is reached, and the final answer after the run", async () => {
    const guardrail = async (name: string, word: string) =>
      (await call(gateway, "POST", "/v1/guardrails", { body: { name, checks: [{ type: "contains", params: { words: [word], operator: "none" } }], action: { deny: true } } })).body.slug as string;
    const noAdding = await guardrail("no adding", "add");
    const noSums = await guardrail("no sums", "sum");
    const configured = (config: Record<string, unknown>) =>
      client("anthropic")
        .responses.create({ model: "claude-sonnet-4-5", input: "add two and three", tools: [MCP_TOOL] }, { headers: { "x-gateway-config": JSON.stringify(config) } })
        .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);

    const requestsBefore = tools.requests.length;
    const input = (await configured({ input_guardrails: [noAdding] })) as InstanceType<typeof OpenAI.APIError>;
    expect(input.status).toBe(446);
    expect(tools.requests.length).toBe(requestsBefore);

    const callsBefore = tools.calls.length;
    const output = (await configured({ output_guardrails: [noSums] })) as InstanceType<typeof OpenAI.APIError>;
    expect(output.status).toBe(446);
    // The run happened; its answer was judged and denied.
    expect(tools.calls.length - callsBefore).toBe(1);
  });
});

describe("MCP servers in the control plane", () => {
  it("stores them sealed, shows them masked to any key, keeps admin writes audited, and checks the URL with the custom-host guard", async () => {
    const created = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "docs", server_url: tools.url, headers: { "x-api-key": "hdr-secret-987654" }, authorization: "tok-abcdef-123456" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "mcp_server", server_label: "docs", authorization: "********", headers: { "x-api-key": "********" }, require_approval: "always" });
    const row = await gateway.gateway.deps.store.db.selectFrom("mcp_servers").selectAll().where("label", "=", "docs").executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain("hdr-secret-987654");
    expect(JSON.stringify(row)).not.toContain("tok-abcdef-123456");

    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "reader", role: "service" } });
    const serviceKey = service.body.key as string;
    const listed = await call(gateway, "GET", "/v1/mcp-servers", { key: serviceKey });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain("tok-abcdef-123456");
    expect(listed.body.data.map((server: { server_label: string }) => server.server_label)).toContain("docs");
    expect((await call(gateway, "GET", "/v1/mcp-servers/docs", { key: serviceKey })).body.server_url).toBe(tools.url);
    expect((await call(gateway, "DELETE", "/v1/mcp-servers/docs", { key: serviceKey })).status).toBe(403);

    const duplicate = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "docs", server_url: tools.url } });
    expect([duplicate.status, duplicate.body.error.param]).toEqual([400, "server_label"]);
    const privateUrl = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "lan", server_url: "http://192.168.1.5/mcp" } });
    expect([privateUrl.status, privateUrl.body.error.code, privateUrl.body.error.param]).toEqual([400, "forbidden_custom_host", "server_url"]);
    const moved = await call(gateway, "PUT", "/v1/mcp-servers/docs", { body: { server_url: trap.url } });
    expect([moved.status, moved.body.error.param]).toEqual([400, "server_url"]);
    const kept = await call(gateway, "PUT", "/v1/mcp-servers/docs", { body: { allowed_tools: ["add"], authorization: "********" } });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ allowed_tools: ["add"], authorization: "********" });
    expect((await call(gateway, "DELETE", "/v1/mcp-servers/docs")).status).toBe(200);
    expect((await call(gateway, "GET", "/v1/mcp-servers/docs")).status).toBe(404);

    const audit = await call(gateway, "GET", "/v1/audit-events?resource_type=mcp_server");
    expect(audit.status).toBe(200);
    const actions = audit.body.data.filter((event: { resource_slug: string }) => event.resource_slug === "docs").map((event: { action: string }) => event.action);
    expect(actions).toEqual(["mcp_server.deleted", "mcp_server.updated", "mcp_server.created"]);
    expect(JSON.stringify(audit.body)).not.toContain("tok-abcdef-123456");
  });
});

describe("a tool run's bounds", () => {
  let tight: RunningGateway;
  const inline = () => ({ type: "mcp", server_label: "tools", server_url: tools.url, require_approval: "never" }) as unknown as OpenAI.Responses.Tool;
  const tightClient = () =>
    new OpenAI({
      baseURL: `${tight.url}/v1`,
      apiKey: UPSTREAM_KEY,
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": tight.adminKey, ...PROVIDERS.anthropic!.headers() },
    });

  beforeAll(async () => {
    tight = await startGateway({ GATEWAY_MCP_CALL_TIMEOUT_MS: 300, GATEWAY_MCP_MAX_RESULT_BYTES: 1000, GATEWAY_MCP_MAX_ROUNDS: 2 });
  });
  afterAll(async () => {
    await tight?.close();
  });

  it("gives up a call past its timeout and tells the model", async () => {
    const { data, response } = await tightClient().responses.create({ model: "claude-sonnet-4-5", input: "take a long nap", tools: [inline()] }).withResponse();
    const called = data.output.find((item) => item.type === "mcp_call") as unknown as Record<string, any>;
    expect(called).toMatchObject({ name: "nap", status: "failed", output: null, error: { type: "mcp_protocol_error" } });
    expect(data.output_text).toBe("The nap took too long.");
    const record = await storedLog(tight, response.headers.get("x-gateway-log-id")!);
    const step = record.toolRun.find((entry) => entry.type === "mcp_call")!;
    expect(step.duration_ms).toBeLessThan(2500);
    expect(step.error).toMatch(/timed out/i);
  });

  it("ends a run past its own time with 408, the call in flight abandoned", async () => {
    const short = await startGateway({ GATEWAY_MCP_RUN_TIMEOUT_MS: 500 });
    try {
      const started = Date.now();
      const refused = await new OpenAI({ baseURL: `${short.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": short.adminKey, ...PROVIDERS.anthropic!.headers() } })
        .responses.create({ model: "claude-sonnet-4-5", input: "take a long nap", tools: [inline()] }, { headers: {} })
        .then(
          (value) => ({ status: 200, value }),
          (error: unknown) => ({ status: (error as { status?: number }).status, value: error }),
        );
      expect(refused.status).toBe(408);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await short.close();
    }
  });

  it("cuts a result past its size and says so to the model", async () => {
    const data = await tightClient().responses.create({ model: "claude-sonnet-4-5", input: "make it big", tools: [inline()] });
    const called = data.output.find((item) => item.type === "mcp_call") as unknown as Record<string, any>;
    expect(called.output).toContain("[truncated by the gateway: 1000 of 5000 bytes]");
    expect(called.output.startsWith("x".repeat(1000))).toBe(true);
    expect(data.output_text).toBe("The result was cut.");
  });

  it("stops after its rounds: calls the last round makes are not run", async () => {
    const before = tools.calls.length;
    const { data, response } = await tightClient().responses.create({ model: "claude-sonnet-4-5", input: "loop forever", tools: [inline()] }).withResponse();
    expect(data.status).toBe("completed");
    expect(data.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call"]);
    expect(tools.calls.length - before).toBe(1);
    const record = await storedLog(tight, response.headers.get("x-gateway-log-id")!);
    expect(record.toolRun.map((step) => step.type)).toEqual(["mcp_list_tools", "model", "mcp_call", "model"]);
  });

  it("cancels the run when a streaming client leaves: no round after, and the log says the client closed", async () => {
    const roundsBefore = upstream.getRequests().length;
    const controller = new AbortController();
    const { data: stream, response } = await client("anthropic")
      .responses.create({ model: "claude-sonnet-4-5", input: "take a long nap", tools: [MCP_TOOL], stream: true }, { signal: controller.signal })
      .withResponse();
    const seen: string[] = [];
    try {
      for await (const event of stream) {
        seen.push(event.type);
        if (event.type === "response.mcp_call.in_progress") controller.abort();
      }
    } catch {
      // The client aborted its own stream.
    }
    expect(seen).toContain("response.mcp_call.in_progress");
    expect(seen).not.toContain("response.completed");
    let record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!).catch(() => null);
    for (let waited = 0; !record && waited < 50; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!).catch(() => null);
    }
    expect(record!.status).toBe(499);
    expect(record!.toolRun.filter((step) => step.type === "model").map((step) => step.round)).toEqual([0]);
    expect(record!.toolRun.find((step) => step.type === "mcp_call")).toMatchObject({ tool: "nap", error: "The request ended during the call." });
    // Only the first round reached the model.
    expect(upstream.getRequests().length - roundsBefore).toBe(1);
  });
});
