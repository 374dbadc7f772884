import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpServer, type TestMcpServer } from "../../../../test/support/mcp-server.ts";
import type { JsonObject } from "../../../providers/provider.ts";
import type { McpServerPlan } from "../../../mcp/server-plans.ts";
import { DEFAULT_TOOL_RUN_LIMITS, ToolRunContext } from "./tool-run-context.ts";
import { runTools, type RoundCall } from "./tool-run.ts";

let server: TestMcpServer;
beforeAll(async () => {
  server = await startMcpServer();
});
afterAll(async () => {
  await server?.close();
});

const plan = (): McpServerPlan => ({ label: "t", url: server.url, headers: {}, allowedTools: new Set(["add"]), approvals: ["never"], param: "tools.0", stored: false });
const limits = { ...DEFAULT_TOOL_RUN_LIMITS, maxRounds: 3, callTimeoutMs: 5_000, runTimeoutMs: 10_000, maxResultBytes: 1_000 };

/** A model that calls `add` every round, and records what it was sent. */
function loopingModel(sent: JsonObject[]): RoundCall {
  return async (body) => {
    sent.push(body);
    const round = sent.length;
    return {
      ok: true,
      status: 200,
      response: { id: `r${round}`, object: "response", model: "m", status: "completed", output: [{ type: "function_call", call_id: `c${round}`, name: "add", arguments: '{"a":1,"b":2}' }], usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } },
    };
  };
}

describe("the tool run's driver", () => {
  it("offers only the allowed tools, feeds each result back, asks the last round to answer without tools, and sums usage", async () => {
    const sent: JsonObject[] = [];
    const run = new ToolRunContext([plan()], limits, (url, init) => fetch(url, init), undefined);
    const answered = await runTools(run, loopingModel(sent), { clientBody: { model: "m", input: "go", tools: [{ type: "mcp", server_label: "t", server_url: server.url }] }, stream: false, maxLoggedBytes: 100 });
    expect(answered.ok).toBe(true);
    if (!answered.ok) return;
    const response = JSON.parse(await answered.value.response.text()) as JsonObject;
    expect(sent).toHaveLength(3);
    expect(sent.map((body) => body.tool_choice)).toEqual([undefined, undefined, "none"]);
    expect((sent[0]!.tools as JsonObject[]).map((tool) => [tool.type, tool.name])).toEqual([["function", "add"]]);
    expect((sent[1]!.input as JsonObject[]).slice(1)).toEqual([
      { type: "function_call", call_id: "c1", name: "add", arguments: '{"a":1,"b":2}' },
      { type: "function_call_output", call_id: "c1", output: "SUM=3" },
    ]);
    expect((response.output as JsonObject[]).map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "mcp_call"]);
    expect(response.usage).toMatchObject({ input_tokens: 30, output_tokens: 6, total_tokens: 36 });
    expect(run.steps.filter((step) => step.type === "mcp_call").map((step) => step.output)).toEqual(["SUM=3", "SUM=3"]);
  });

  it("hands the first round's failure back as the target's, so a config can fall back", async () => {
    const run = new ToolRunContext([plan()], limits, (url, init) => fetch(url, init), undefined);
    const failing: RoundCall = async () => ({ ok: false, failure: { ok: false, error: new (await import("../../../errors.ts")).GatewayError("upstream_unreachable", "down") } });
    const answered = await runTools(run, failing, { clientBody: { model: "m", input: "go" }, stream: true, maxLoggedBytes: 100 });
    expect(answered.ok).toBe(false);
    if (!answered.ok) expect(answered.error.code).toBe("upstream_unreachable");
  });
});
