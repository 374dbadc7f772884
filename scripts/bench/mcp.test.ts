import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { carriesId, checkCall, directMcpEndpoint, emptyMcpSamples, isToolAnswer, mcpLoad, openSession, summarizeMcp, type McpEndpoint } from "./mcp.ts";
import { LOOKUP_TEXT, mcpBenchHandler } from "./mcp-server.ts";
import { readOptions } from "./options.ts";
import { render, verdicts, type Results } from "./report.ts";

let server: ServerType;
let endpoint: McpEndpoint;
const handler = mcpBenchHandler();

beforeAll(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: handler.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  endpoint = directMcpEndpoint(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the MCP target's driver", () => {
  it("opens sessions, checks a call, and counts timed calls on each session's own connection", async () => {
    const sessions = [await openSession(endpoint), await openSession(endpoint)];
    expect(new Set(sessions).size).toBe(2);
    await checkCall(endpoint, sessions[0]!);
    const latencies: number[] = [];
    const result = await mcpLoad(endpoint, sessions, 0.2, latencies);
    expect(result.errors).toBe(0);
    // Each connection sends at least its first call, however slow the machine.
    expect(result.requests).toBeGreaterThanOrEqual(sessions.length);
    expect(latencies).toHaveLength(result.requests);
    expect(latencies.every((ms) => ms > 0)).toBe(true);
  });

  it("counts a call the server refuses as an error, never as a call, and refuses such a target before timing", async () => {
    const result = await mcpLoad(endpoint, ["no-such-session"], 0.1);
    expect([result.requests, result.errors > 0]).toEqual([0, true]);
    await expect(checkCall(endpoint, "no-such-session")).rejects.toThrow(/answered 404 to an MCP tools\/call/);
  });

  it("takes only the answer to the call it sent as a tool's answer", () => {
    const good = JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: LOOKUP_TEXT }], isError: false } });
    expect(isToolAnswer(good, 7)).toBe(true);
    expect(isToolAnswer(good, 8)).toBe(false);
    expect(isToolAnswer(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: LOOKUP_TEXT }], isError: true } }), 7)).toBe(false);
    expect(isToolAnswer(JSON.stringify({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "no" } }), 7)).toBe(false);
    expect(isToolAnswer("{nope", 7)).toBe(false);
    // The id is found wherever the server put it, and never as the start of another id.
    expect(carriesId('{"result":{},"jsonrpc":"2.0","id":12}', 12)).toBe(true);
    expect(carriesId('{"jsonrpc":"2.0","id":12,"result":{}}', 12)).toBe(true);
    expect(carriesId('{"jsonrpc":"2.0","id":123,"result":{}}', 12)).toBe(false);
  });
});

function samples(latencyMs: number[], loadLatencyMs: number[], cpu: number[]) {
  return { ...emptyMcpSamples(), latencyMs, loadLatencyMs, cpuUsPerCall: cpu, serverCpuUsPerCall: cpu.map(() => 20), load: cpu.map(() => ({ requests: 100, errors: 1, seconds: 1, rps: 100 })) };
}

describe("the MCP target's figures and verdict", () => {
  const direct = samples([0.2, 0.2, 0.3, 0.2, 5], [1, 1, 2, 1, 9], [30, 20, 25]);
  const through = samples([0.9, 0.8, 1, 0.9, 7], [3, 3, 4, 3, 20], [300, 280, 320]);

  it("adds the gateway's quantiles over direct's, at one connection and under the load", () => {
    const figures = summarizeMcp({ direct, gateway: through }, 16);
    expect(figures).toMatchObject({ connections: 16, addedP50Ms: 0.7, addedLoadP50Ms: 2 });
    // p99 of five samples lies 96% of the way from the fourth to the fifth.
    expect(figures.addedP99Ms).toBeCloseTo(1 + (7 - 1) * 0.96 - (0.3 + (5 - 0.3) * 0.96), 3);
    expect(figures.direct).toMatchObject({ latencyP50Ms: 0.2, cpuUsPerCall: 25, cpuRounds: [30, 20, 25], serverCpuUsPerCall: 20, errors: 3, rps: 100 });
    expect(figures.gateway).toMatchObject({ latencyP50Ms: 0.9, loadP50Ms: 3, cpuUsPerCall: 300 });
  });

  it("passes an added p50 of 1 ms and misses one above it, and leaves it out when mcp did not run", () => {
    const find = (list: ReturnType<typeof verdicts>) => list.find((item) => item.name === "MCP tools/call added p50 at 1 connection");
    const at = (gatewayP50: number) => summarizeMcp({ direct, gateway: samples([gatewayP50, gatewayP50, gatewayP50], [3], [300]) }, 16);
    expect(find(verdicts({}, {}, {}, at(1.2)))).toMatchObject({ value: 1, pass: true, goal: "≤ 1 ms" });
    expect(find(verdicts({}, {}, {}, at(1.25)))).toMatchObject({ value: 1.05, pass: false });
    expect(find(verdicts({}, {}, {}))).toBeUndefined();
  });

  it("shows both sides and the verdict in the report", () => {
    const mcp = summarizeMcp({ direct, gateway: through }, 16);
    const results = {
      finishedAt: "2026-01-01T00:00:00.000Z",
      drivers: { throughput: "node", latency: "node:http" },
      environment: { cpus: 2, node: "v20", bun: "1.4.5", platform: "linux-x64", loadAverage: { start: 0.1, end: 1.9 } },
      options: readOptions([]),
      targets: {},
      operations: {},
      streamCpu: {},
      mcp,
      verdicts: verdicts({}, {}, {}, mcp),
    } satisfies Results;
    const text = render(results);
    expect(text).toMatch(/^gateway \(\/mcp\/\{label\}\) +0\.900 +[\d.]+ +\+0\.700 /m);
    expect(text).toMatch(/^direct \(MCP server\) +0\.200 /m);
    expect(text).toContain("PASS  MCP tools/call added p50 at 1 connection: 0.700 ms (goal ≤ 1 ms)");
  });
});
