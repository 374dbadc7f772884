import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startMcpServer, type TestMcpServer } from "./support/mcp-server.ts";

let gateway: RunningGateway;
let upstream: LLMock;
let tools: TestMcpServer;
let trap: TestMcpServer;

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
  upstream.onMessage("add two and three", { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }], usage: { input_tokens: 30, output_tokens: 10 } });
  upstream.onMessage("make it explode", { toolCalls: [{ name: "explode", arguments: {} }] });
  upstream.onMessage("delete the notes", { toolCalls: [{ name: "delete_file", arguments: { path: "notes.txt" } }] });
  tools = await startMcpServer();
  trap = await startMcpServer();
  gateway = await startGateway();
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
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(["add", "explode", "delete_file"]);
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
  });
});
