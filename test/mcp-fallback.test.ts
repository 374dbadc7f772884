import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, freePort, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startMcpServer, type TestMcpServer } from "./support/mcp-server.ts";

/**
 * A tool run whose first target fails before it answers falls back to the next target whole:
 * the MCP sessions and the client's cancellation carry over, a call the client approved runs
 * once and is reported as it ran, and a streaming client that is still there gets its answer.
 */

let upstream: LLMock;
/** A target that answers the first round and fails once the tool has run (aimock's error fixture). */
let failing: LLMock;
let gateway: RunningGateway;
let tools: TestMcpServer;
let fallback: string;

const MODEL = "claude-sonnet-4-5";
const STORED = { type: "mcp", server_label: "calc" } as unknown as OpenAI.Responses.Tool;

/** The client straight to the model, or (with a config) to the config's targets. */
const client = (config?: string) =>
  new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...(config === undefined ? { "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1` } : { "x-gateway-config": config }) },
  });

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.on({ toolResultContains: "SUM=5" }, { content: "The sum is 5." });
  upstream.on({ toolResultContains: "deleted notes.txt" }, { content: "Done, the file is gone." });
  upstream.on({ toolResultContains: "SUM=15" }, { content: "The sum is 15." });
  upstream.onMessage("add two and three", { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] });
  upstream.onMessage("add seven and eight", { toolCalls: [{ name: "add", arguments: { a: 7, b: 8 } }] });
  failing = await startUpstream();
  failing.on({ toolResultContains: "SUM=15" }, { error: { message: "The server had an error while processing your request.", type: "api_error" }, status: 500 });
  failing.onMessage("add seven and eight", { toolCalls: [{ name: "add", arguments: { a: 7, b: 8 } }] });
  upstream.onMessage("delete the notes", { toolCalls: [{ name: "delete_file", arguments: { path: "notes.txt" } }] });
  tools = await startMcpServer();
  gateway = await startGateway();
  const stored = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "calc", server_url: tools.url, require_approval: { always: { tool_names: ["delete_file"] } } } });
  expect(stored.status).toBe(201);
  // The first target cannot be reached; the second is the model.
  const dead = `http://127.0.0.1:${await freePort()}/v1`;
  fallback = JSON.stringify({
    strategy: { mode: "fallback" },
    targets: [
      { provider: "anthropic", api_key: UPSTREAM_KEY, custom_host: dead },
      { provider: "anthropic", api_key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` },
    ],
  });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await failing?.stop();
  await tools?.close();
});

describe("a tool run that falls back after its first target fails", () => {
  it("runs the approved call once and reports it as it ran", async () => {
    const first = await client().responses.create({ model: MODEL, input: "delete the notes", tools: [STORED] });
    const request = first.output.find((item) => item.type === "mcp_approval_request") as unknown as { id: string };
    expect(request).toBeDefined();
    const callsBefore = tools.calls.length;
    let follow: { data: OpenAI.Responses.Response; response: Response } | null = null;
    for (let waited = 0; !follow && waited < 40; waited += 1) {
      follow = await client(fallback)
        .responses.create({
          model: MODEL,
          previous_response_id: first.id,
          tools: [STORED],
          input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true } as unknown as OpenAI.Responses.ResponseInputItem],
        })
        .withResponse()
        .catch(async (error: unknown) => {
          // The kept response lands off the request path: a follow-up may come a moment early.
          if ((error as { status?: number }).status !== 400) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
          return null;
        });
    }
    const { data, response } = follow!;
    expect(data.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
    expect(data.output[0]).toMatchObject({ name: "delete_file", status: "completed", output: "deleted notes.txt", error: null, approval_request_id: request.id });
    expect(data.output_text).toBe("Done, the file is gone.");
    expect(tools.calls.slice(callsBefore)).toEqual([{ name: "delete_file", arguments: { path: "notes.txt" } }]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.attempts.map((attempt) => [attempt.path, attempt.errorCode])).toEqual([
      ["0", "upstream_unreachable"],
      ["1", null],
    ]);
    expect(record.toolRun.filter((step) => step.type === "mcp_call").map((step) => [step.tool, step.error])).toEqual([["delete_file", null]]);
  });

  it.each([false, true])("keeps its sessions for the next target (stream: %s): the calls run there, and the client gets the answer", async (stream) => {
    const inline = { type: "mcp", server_label: "inline", server_url: tools.url, require_approval: "never" } as unknown as OpenAI.Responses.Tool;
    const callsBefore = tools.calls.length;
    const { data: created, response } = await client(fallback).responses.create({ model: MODEL, input: "add two and three", tools: [inline], stream }).withResponse();
    let final: OpenAI.Responses.Response;
    if (stream) {
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of created as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) events.push(event);
      const last = events.at(-1)!;
      expect(last.type).toBe("response.completed");
      final = (last as OpenAI.Responses.ResponseCompletedEvent).response;
    } else {
      final = created as OpenAI.Responses.Response;
    }
    expect(final.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect(final.output[1]).toMatchObject({ name: "add", status: "completed", output: "SUM=5" });
    expect(final.output_text ?? (final.output[2] as OpenAI.Responses.ResponseOutputMessage).content.map((part) => ("text" in part ? part.text : "")).join("")).toBe("The sum is 5.");
    expect(tools.calls.slice(callsBefore)).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.status).toBe(200);
    expect(record.attempts.map((attempt) => [attempt.path, attempt.errorCode])).toEqual([
      ["0", "upstream_unreachable"],
      ["1", null],
    ]);
  });
});

describe("a tool run whose target fails after a tool has run", () => {
  it.each([false, true])("continues on the next target from the tool's result, never running it again (stream: %s)", async (stream) => {
    const config = JSON.stringify({
      strategy: { mode: "fallback" },
      targets: [
        { provider: "anthropic", api_key: UPSTREAM_KEY, custom_host: `${failing.url}/v1` },
        { provider: "anthropic", api_key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` },
      ],
    });
    const inline = { type: "mcp", server_label: "inline", server_url: tools.url, require_approval: "never" } as unknown as OpenAI.Responses.Tool;
    const callsBefore = tools.calls.length;
    failing.clearRequests();
    upstream.clearRequests();
    const { data: created, response } = await client(config).responses.create({ model: MODEL, input: "add seven and eight", tools: [inline], stream }).withResponse();
    let final: OpenAI.Responses.Response;
    if (stream) {
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of created as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) events.push(event);
      expect(events.filter((event) => event.type === "response.mcp_call.completed")).toHaveLength(1);
      expect(events.at(-1)!.type).toBe("response.completed");
      final = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
    } else {
      final = created as OpenAI.Responses.Response;
    }
    expect(final.status).toBe("completed");
    expect(final.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect(final.output[1]).toMatchObject({ name: "add", status: "completed", output: "SUM=15" });
    expect((final.output[2] as OpenAI.Responses.ResponseOutputMessage).content.map((part) => ("text" in part ? part.text : "")).join("")).toBe("The sum is 15.");
    // The MCP server ran the tool once, on the first target's request.
    expect(tools.calls.slice(callsBefore)).toEqual([{ name: "add", arguments: { a: 7, b: 8 } }]);
    // The first target answered the first round and failed the second; the next target got only the second, with the call and its result.
    expect(failing.getRequests()).toHaveLength(2);
    const carried = upstream.getRequests();
    expect(carried).toHaveLength(1);
    // aimock's journal reads the Messages request in chat terms: the call as `tool_calls`, its result as a `tool` message.
    const messages = (carried[0]!.body as { messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[1]!.tool_calls?.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([["add", { a: 7, b: 8 }]]);
    expect([messages[2]!.content, messages[2]!.tool_call_id]).toEqual(["SUM=15", messages[1]!.tool_calls?.[0]?.id]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.status).toBe(200);
    expect(record.attempts.map((attempt) => [attempt.path, attempt.status, attempt.errorCode])).toEqual([
      ["0", 200, null],
      ["0", 500, null],
      ["1", 200, null],
    ]);
    expect(record.toolRun.filter((step) => step.type === "mcp_call").map((step) => [step.tool, step.error])).toEqual([["add", null]]);
  });
});
