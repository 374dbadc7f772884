import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_TOOL, LOOKUP_TEXT, mcpBenchHandler, toolCallBody } from "./mcp-server.ts";

let server: ServerType;
let url: string;
const handler = mcpBenchHandler();

beforeAll(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: handler.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });

describe("the bench's MCP server", () => {
  it("serves the official SDK client: a session, the tool listed, the call answered, the session ended", async () => {
    const client = new Client({ name: "bench-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe("bench-mcp");
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([BENCH_TOOL]);
    expect(await client.callTool({ name: BENCH_TOOL, arguments: { query: "q" } })).toEqual({ content: [{ type: "text", text: LOOKUP_TEXT }], isError: false });
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
    expect(await client.ping()).toEqual({});
    const before = handler.sessions();
    await transport.terminateSession();
    expect(handler.sessions()).toBe(before - 1);
    await client.close();
  });

  it("answers the bench's call by its id, and refuses a call without a session it knows", async () => {
    const opened = await post(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }));
    const session = opened.headers.get("mcp-session-id")!;
    expect((await opened.json()).result.protocolVersion).toBe("2025-06-18");
    expect((await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "mcp-session-id": session })).status).toBe(202);
    const called = await post(toolCallBody(41), { "mcp-session-id": session });
    expect(await called.json()).toEqual({ jsonrpc: "2.0", id: 41, result: { content: [{ type: "text", text: LOOKUP_TEXT }], isError: false } });
    expect((await post(toolCallBody(42))).status).toBe(400);
    expect((await post(toolCallBody(43), { "mcp-session-id": "gone" })).status).toBe(404);
    const unknownVersion = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "1999-01-01" } }));
    expect((await unknownVersion.json()).result.protocolVersion).toBe("2025-11-25");
  });
});
