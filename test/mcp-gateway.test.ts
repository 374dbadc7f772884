import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startSdkMcpServer, type SdkMcpServer } from "./support/sdk-mcp-server.ts";

/**
 * The MCP gateway driven by the official SDK's client (`Client`, `StreamableHTTPClientTransport`)
 * against MCP servers built with the official SDK: one server proxied, the workspace's servers
 * merged, access rules, logs, secrets, sessions.
 */
const TOKEN = "mcp-stored-token-7f3a9c1e5b";

let gateway: RunningGateway;
let tools: SdkMcpServer;
let secured: SdkMcpServer;
let serviceKey: string;
let narrowKey: string;

async function connect(path: string, key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } } }));
  return client;
}

async function createKey(body: Record<string, unknown>): Promise<string> {
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { role: "service", ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.key as string;
}

beforeAll(async () => {
  tools = await startSdkMcpServer({ name: "tools" });
  secured = await startSdkMcpServer({ name: "secured", token: TOKEN });
  gateway = await startGateway();
  for (const [label, server, extra] of [["tools", tools, { tool_prices: { add: 0.25 } }], ["secured", secured, { authorization: TOKEN }]] as const) {
    const stored = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: label, server_url: server.url, ...extra } });
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
  }
  serviceKey = await createKey({ name: "agent" });
  narrowKey = await createKey({ name: "narrow", mcp_access: { servers: { tools: { tools: ["add"] } } } });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tools?.close();
  await secured?.close();
});

describe("one stored server through the gateway (/mcp/{server_label})", () => {
  it("passes initialize, tools, calls, errors, progress, prompts, resources and pings through", async () => {
    const client = await connect("/mcp/tools", serviceKey);
    expect(client.getServerVersion()?.name).toBe("tools");
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(["add", "count", "echo_auth", "explode"]);
    expect(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: "text", text: "SUM=5" }] });
    expect(await client.callTool({ name: "explode", arguments: {} })).toMatchObject({ isError: true });
    const progress: number[] = [];
    const counted = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, { onprogress: (event) => progress.push(event.progress) });
    expect(counted).toMatchObject({ content: [{ text: "counted 3" }] });
    expect(progress).toEqual([1, 2, 3]);
    expect(await client.getPrompt({ name: "greet", arguments: { who: "Ada" } })).toMatchObject({ messages: [{ content: { text: "Hello, Ada" } }] });
    expect(await client.readResource({ uri: "file:///readme.md" })).toMatchObject({ contents: [{ text: "# tools" }] });
    expect(await client.ping()).toEqual({});
    // The server's own error for an unknown tool reaches the client as it sent it.
    await expect(client.callTool({ name: "nope", arguments: {} })).resolves.toMatchObject({ isError: true });
    await client.close();
  });

  it("sends the stored token to its server, and never to the client or the log", async () => {
    const client = await connect("/mcp/secured", serviceKey, { "x-gateway-trace-id": "trace-secured-1" });
    const echoed = await client.callTool({ name: "echo_auth", arguments: {} });
    expect(JSON.stringify(echoed)).not.toContain(TOKEN);
    expect(JSON.stringify(echoed)).toContain("[redacted]");
    expect(secured.requests.every((headers) => headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    await client.close();
    await gateway.flushLogs();
    const logs = await call(gateway, "GET", "/v1/logs?trace_id=trace-secured-1");
    expect(logs.body.data.length).toBeGreaterThan(0);
    for (const summary of logs.body.data) {
      const record = await call(gateway, "GET", `/v1/logs/${summary.id}`);
      expect(JSON.stringify(record.body)).not.toContain(TOKEN);
    }
  });

  it("logs every request with the server, the tool, the trace, the metadata and the price", async () => {
    const client = await connect("/mcp/tools", serviceKey, { "x-gateway-trace-id": "trace-agent-1", "x-gateway-metadata": JSON.stringify({ _user: "ada", team: "search" }) });
    await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    await client.callTool({ name: "explode", arguments: {} });
    await client.close();
    await gateway.flushLogs();
    const logs = await call(gateway, "GET", "/v1/logs?trace_id=trace-agent-1");
    const byMethod = logs.body.data.map((log: Record<string, unknown>) => [log.method, log.provider, log.model, log.success, log.user, log.cost_usd]);
    expect(byMethod).toEqual(
      expect.arrayContaining([
        ["initialize", "mcp:tools", null, true, "ada", null],
        ["tools/call", "mcp:tools", "add", true, "ada", 0.25],
        ["tools/call", "mcp:tools", "explode", false, "ada", null],
      ]),
    );
    const failed = logs.body.data.find((log: Record<string, unknown>) => log.model === "explode");
    expect(failed.error).toMatchObject({ code: "tool_error", message: expect.stringContaining("boom") });
    expect(failed.metadata).toMatchObject({ team: "search" });
  });

  it("re-initialises a server that lost the session, behind the client's back", async () => {
    const client = await connect("/mcp/tools", serviceKey);
    const before = tools.initializations();
    tools.restart();
    expect(await client.callTool({ name: "add", arguments: { a: 4, b: 4 } })).toMatchObject({ content: [{ text: "SUM=8" }] });
    expect(tools.initializations()).toBe(before + 1);
    await client.close();
  });
});

describe("the workspace's servers merged (/mcp)", () => {
  it("lists every server's tools under <label>__<name> and routes each call to its server", async () => {
    const client = await connect("/mcp", serviceKey);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["tools__add", "tools__count", "secured__echo_auth"]));
    expect(await client.callTool({ name: "tools__add", arguments: { a: 20, b: 22 } })).toMatchObject({ content: [{ text: "SUM=42" }] });
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(prompts).toContain("secured__greet");
    expect(await client.getPrompt({ name: "secured__greet", arguments: { who: "Grace" } })).toMatchObject({ messages: [{ content: { text: "Hello, Grace" } }] });
    const resources = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(resources).toContain("mcp-gateway://tools/file:///readme.md");
    expect(await client.readResource({ uri: "mcp-gateway://secured/file:///readme.md" })).toMatchObject({ contents: [{ uri: "mcp-gateway://secured/file:///readme.md", text: "# secured" }] });
    await client.close();
  });

  it("keeps the other servers usable when one is down, and names the one missing", async () => {
    const down = await startSdkMcpServer({ name: "down" });
    await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "flaky", server_url: down.url } });
    await down.close();
    const client = await connect("/mcp", serviceKey);
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain("tools__add");
    expect(listed._meta?.["mcp-gateway/unavailable"]).toEqual([expect.objectContaining({ server: "flaky" })]);
    expect(await client.callTool({ name: "tools__add", arguments: { a: 1, b: 2 } })).toMatchObject({ content: [{ text: "SUM=3" }] });
    await client.close();
    await call(gateway, "DELETE", "/v1/mcp-servers/flaky");
  });
});

describe("who may call what", () => {
  it("answers a call without a valid key 401 with WWW-Authenticate", async () => {
    for (const headers of [{}, { authorization: "Bearer not-a-key" }] as Record<string, string>[]) {
      const response = await fetch(`${gateway.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
  });

  it("lists and calls only the tools a key's rule allows, and refuses the rest with a JSON-RPC error", async () => {
    const client = await connect("/mcp/tools", narrowKey);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["add"]);
    await expect(client.callTool({ name: "explode", arguments: {} })).rejects.toThrow(/mcp_access/);
    expect(tools.calls.filter((name) => name === "explode").length).toBeGreaterThan(0);
    await client.close();
    const merged = await connect("/mcp", narrowKey);
    expect((await merged.listTools()).tools.map((tool) => tool.name)).toEqual(["tools__add"]);
    await expect(merged.callTool({ name: "secured__echo_auth", arguments: {} })).rejects.toThrow(/no MCP server this key may use/);
    await merged.close();
    await expect(connect("/mcp/secured", narrowKey)).rejects.toThrow(/mcp_access/);
  });

  it("keeps a session to the key that opened it", async () => {
    const client = await connect("/mcp/tools", serviceKey);
    const transport = (client as unknown as { _transport: StreamableHTTPClientTransport })._transport;
    const response = await fetch(`${gateway.url}/mcp/tools`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${narrowKey}`, "mcp-session-id": transport.sessionId! },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
    await client.close();
  });

  it("answers malformed JSON-RPC with JSON-RPC errors and keeps serving", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}/mcp/tools`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${serviceKey}`, ...headers }, body });
    const notJson = await post("{nope");
    expect([notJson.status, (await notJson.json()).error.code]).toEqual([400, -32700]);
    const batch = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
    expect([batch.status, (await batch.json()).error.code]).toEqual([400, -32600]);
    const noSession = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(noSession.status).toBe(400);
    const unknownSession = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { "mcp-session-id": "no-such-session" });
    expect(unknownSession.status).toBe(404);
    const client = await connect("/mcp", serviceKey);
    await expect(client.request({ method: "no/such/method", params: {} }, (await import("@modelcontextprotocol/sdk/types.js")).EmptyResultSchema)).rejects.toThrow(/Method not found/);
    await client.close();
  });
});
