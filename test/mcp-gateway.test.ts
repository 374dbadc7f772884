import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startSdkMcpServer, type SdkMcpServer } from "./support/sdk-mcp-server.ts";
import { TEST_DATABASES, type TestDatabase } from "./support/databases.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";
import { testRedisUrl } from "./support/services.ts";

/**
 * The MCP gateway driven by the official SDK's client (`Client`, `StreamableHTTPClientTransport`)
 * against MCP servers built with the official SDK: one server proxied, the workspace's servers
 * merged, access rules, logs, secrets, sessions.
 */
const TOKEN = "mcp-stored-token-7f3a9c1e5b";

describe.each(TEST_DATABASES)("the MCP gateway on $name", (store) => {
  let gateway: RunningGateway;
  let database: TestDatabase;
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
    database = await store.create();
    tools = await startSdkMcpServer({ name: "tools" });
    secured = await startSdkMcpServer({ name: "secured", token: TOKEN });
    gateway = await startGateway({ GATEWAY_DATABASE_URL: database.url, GATEWAY_MCP_CALL_TIMEOUT_MS: 1_000, GATEWAY_MCP_MAX_MESSAGE_BYTES: 64 * 1024, GATEWAY_MCP_MAX_RESULT_BYTES: 4096 });
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
    await database?.cleanup();
  });

  describe("one stored server through the gateway (/mcp/{server_label})", () => {
    it("passes initialize, tools, calls, errors, progress, prompts, resources and pings through", async () => {
      const client = await connect("/mcp/tools", serviceKey);
      expect(client.getServerVersion()?.name).toBe("tools");
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(["add", "big", "contact", "count", "echo", "echo_auth", "explode", "sleep"]);
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
      // Analytics per server and per tool: calls, errors, latency percentiles.
      const perTool = await call(gateway, "GET", "/v1/analytics/groups?by=model&provider=mcp:tools&trace_id=trace-agent-1");
      expect(perTool.status, JSON.stringify(perTool.body)).toBe(200);
      const byTool = Object.fromEntries(perTool.body.data.map((group: { key: string; requests: number; errors: number }) => [group.key, [group.requests, group.errors]]));
      expect(byTool).toMatchObject({ add: [1, 0], explode: [1, 1] });
      const perServer = await call(gateway, "GET", "/v1/analytics/groups?by=provider&trace_id=trace-agent-1");
      expect(perServer.body.data.find((group: { key: string }) => group.key === "mcp:tools")).toMatchObject({ requests: 3, errors: 1, latency_ms: expect.any(Object) });
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

  describe("limits and guardrails on tool calls", () => {
    it("refuses a call past the key's per-tool rate with a JSON-RPC error saying when to retry", async () => {
      const key = await createKey({ name: "limited", mcp_access: { calls_per_minute_per_tool: 2 } });
      const client = await connect("/mcp/tools", key);
      for (const a of [1, 2]) expect(await client.callTool({ name: "add", arguments: { a, b: 0 } })).toMatchObject({ content: [{ text: `SUM=${a}` }] });
      await expect(client.callTool({ name: "add", arguments: { a: 3, b: 0 } })).rejects.toThrow(/calls_per_minute_per_tool/);
      // Another tool has its own count.
      expect(await client.callTool({ name: "echo", arguments: { text: "still fine" } })).toMatchObject({ content: [{ text: "still fine" }] });
      await client.close();
    });

    it("counts each call's price against the caller's budgets, and refuses calls once one is spent", async () => {
      const budget = await call(gateway, "POST", "/v1/budgets", { body: { name: "tools for ada", scope: { type: "user", user: "budget-ada" }, limit_usd: 0.5, period: { type: "none" } } });
      expect(budget.status, JSON.stringify(budget.body)).toBe(201);
      const client = await connect("/mcp/tools", serviceKey, { "x-gateway-metadata": JSON.stringify({ _user: "budget-ada" }) });
      for (const a of [1, 2]) expect(await client.callTool({ name: "add", arguments: { a, b: 0 } })).toMatchObject({ content: [{ text: `SUM=${a}` }] });
      await gateway.flushLogs();
      await expect.poll(async () => (await call(gateway, "GET", `/v1/budgets/${budget.body.id}`)).body.spent_usd, { timeout: 5_000 }).toBe(0.5);
      await expect(client.callTool({ name: "add", arguments: { a: 3, b: 0 } })).rejects.toThrow(/budget/i);
      await client.close();
      await call(gateway, "DELETE", `/v1/budgets/${budget.body.id}`);
    });

    it("counts tool calls into the agent's run and halts a run that repeats the same call past its limit", async () => {
      const key = await createKey({ name: "looping agent", run_limits: { max_tool_calls: 5, repeat_limit: 2 } });
      const client = await connect("/mcp/tools", key, { "x-gateway-trace-id": "run-loop-1" });
      for (let i = 0; i < 2; i += 1) expect(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).toMatchObject({ content: [{ text: "SUM=2" }] });
      await expect(client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).rejects.toThrow(/run_halted|halted|repeat/i);
      // The run stays halted for every later call, the same or not.
      await expect(client.callTool({ name: "echo", arguments: { text: "anything" } })).rejects.toThrow(/halted/i);
      await client.close();
    });

    it("runs the server's guardrails on arguments before the call and on results after it; a denial is a tool error", async () => {
      const guardrail = await call(gateway, "POST", "/v1/guardrails", { body: { name: "No secret word", checks: [{ type: "contains", params: { words: ["forbidden"], operator: "none" } }], action: { deny: true } } });
      expect(guardrail.status, JSON.stringify(guardrail.body)).toBe(201);
      const stored = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "guarded", server_url: tools.url, input_guardrails: [guardrail.body.slug], output_guardrails: [guardrail.body.slug] } });
      expect(stored.status, JSON.stringify(stored.body)).toBe(201);
      const client = await connect("/mcp/guarded", serviceKey);
      const echoes = tools.calls.filter((name) => name === "echo").length;
      const denied = await client.callTool({ name: "echo", arguments: { text: "the forbidden word" } });
      expect(denied).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("arguments were denied") }] });
      expect(tools.calls.filter((name) => name === "echo").length).toBe(echoes);
      expect(await client.callTool({ name: "echo", arguments: { text: "harmless" } })).toMatchObject({ content: [{ text: "harmless" }] });
      const result = await client.callTool({ name: "big", arguments: { bytes: 10 } });
      expect(result).toMatchObject({ content: [{ text: "xxxxxxxxxx" }] });
      await client.close();
      await call(gateway, "DELETE", "/v1/mcp-servers/guarded");
    });
  });

  describe("personal data redacted by a guardrail", () => {
    it("replaces what a failed pii check found in a tool's arguments and result, and passes the rest", async () => {
      const guardrail = await call(gateway, "POST", "/v1/guardrails", { body: { name: "Redact emails", checks: [{ type: "pii", params: { categories: ["email"] } }], action: { deny: false, redact: true } } });
      expect(guardrail.status, JSON.stringify(guardrail.body)).toBe(201);
      expect(guardrail.body.action).toEqual({ deny: false, redact: true });
      const stored = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "private", server_url: tools.url, input_guardrails: [guardrail.body.slug], output_guardrails: [guardrail.body.slug] } });
      expect(stored.status, JSON.stringify(stored.body)).toBe(201);
      const client = await connect("/mcp/private", serviceKey);
      const echoed = await client.callTool({ name: "echo", arguments: { text: "write to ada@example.com today" } });
      expect(echoed).toMatchObject({ content: [{ text: "write to [REDACTED:email] today" }] });
      expect(await client.callTool({ name: "echo", arguments: { text: "no address here" } })).toMatchObject({ content: [{ text: "no address here" }] });
      expect(await client.callTool({ name: "contact", arguments: {} })).toMatchObject({ content: [{ text: "reach grace at [REDACTED:email]" }] });
      await client.close();
      await call(gateway, "DELETE", "/v1/mcp-servers/private");
    });
  });

  describe("robust against slow, hung and oversized servers", () => {
    it("times a slow call out as a JSON-RPC error, and refuses a message past GATEWAY_MCP_MAX_MESSAGE_BYTES", async () => {
      const client = await connect("/mcp/tools", serviceKey);
      const started = Date.now();
      await expect(client.callTool({ name: "sleep", arguments: { ms: 3_000 } })).rejects.toThrow(/no answer within 1000 ms/);
      expect(Date.now() - started).toBeLessThan(2_500);
      await expect(client.callTool({ name: "big", arguments: { bytes: 100_000 } })).rejects.toThrow(/larger than 65536 bytes/);
      // Within the message limit, a result longer than GATEWAY_MCP_MAX_RESULT_BYTES is cut with a note, as in the tool loop.
      const long = await client.callTool({ name: "big", arguments: { bytes: 20_000 } });
      expect((long.content as Array<{ text: string }>)[0]!.text).toMatch(/^x{4096}\n\[truncated by the gateway: 4096 of 20000 bytes\]$/);
      expect(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).toMatchObject({ content: [{ text: "SUM=2" }] });
      await client.close();
    });

    it("refuses a server's redirect, so its stored token never reaches the server it points to", async () => {
      const trapped: string[] = [];
      const trap: RawUpstream = await startRawUpstream((_body, res, req) => {
        trapped.push(String(req.headers.authorization));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
      const redirecting: RawUpstream = await startRawUpstream((_body, res) => {
        res.writeHead(307, { location: trap.url.replace(/\/v1$/, "/mcp") }).end();
      });
      await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "redirecting", server_url: redirecting.url.replace(/\/v1$/, "/mcp"), authorization: "trap-me-token-42" } });
      await expect(connect("/mcp/redirecting", serviceKey)).rejects.toThrow(/redirect/);
      expect(trapped).toEqual([]);
      await gateway.flushLogs();
      const logs = await call(gateway, "GET", "/v1/logs?provider=mcp:redirecting");
      for (const summary of logs.body.data) expect(JSON.stringify((await call(gateway, "GET", `/v1/logs/${summary.id}`)).body)).not.toContain("trap-me-token-42");
      await call(gateway, "DELETE", "/v1/mcp-servers/redirecting");
      await trap.close();
      await redirecting.close();
    });

    it("ends the server's request when the client goes away", async () => {
      let closed = 0;
      const silent: RawUpstream = await startRawUpstream((body, res, req) => {
        if (body?.method === "initialize") {
          res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
          return res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "silent", version: "1" } } }));
        }
        if (body?.method === "tools/call") return void req.on("close", () => (closed += 1));
        res.writeHead(202).end();
      });
      await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "silent", server_url: silent.url.replace(/\/v1$/, "/mcp") } });
      const client = await connect("/mcp/silent", serviceKey);
      const controller = new AbortController();
      const pending = client.callTool({ name: "anything", arguments: {} }, undefined, { signal: controller.signal, timeout: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort();
      await expect(pending).rejects.toThrow();
      await expect.poll(() => closed, { timeout: 2_000 }).toBe(1);
      await client.close();
      await silent.close();
      await call(gateway, "DELETE", "/v1/mcp-servers/silent");
    });

    it("holds 200 concurrent sessions", async () => {
      // A replica of its own, with the default call deadline: 200 sessions at once on two cores take longer than this file's 1 s one.
      const replica = await startGateway({ GATEWAY_DATABASE_URL: database.url });
      const connectTo = async (): Promise<Client> => {
        const client = new Client({ name: "agent", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${replica.url}/mcp/tools`), { requestInit: { headers: { authorization: `Bearer ${serviceKey}` } } }));
        return client;
      };
      const clients = await Promise.all(Array.from({ length: 200 }, connectTo));
      const sums = await Promise.all(clients.map((client, index) => client.callTool({ name: "add", arguments: { a: index, b: 1 } })));
      expect(sums.map((sum) => (sum.content as Array<{ text: string }>)[0]!.text)).toEqual(clients.map((_, index) => `SUM=${index + 1}`));
      await Promise.all(clients.map((client) => client.close()));
      await replica.close();
    }, 60_000);
  });

  describe("workspaces", () => {
    it("keeps another workspace's servers, sessions and logs out of reach", async () => {
      const other = await createKey({ name: "elsewhere", workspace_id: "00000000-0000-4000-8000-0000000000aa" });
      await expect(connect("/mcp/tools", other)).rejects.toThrow(/No MCP server labelled tools/);
      const merged = await connect("/mcp", other);
      expect((await merged.listTools()).tools).toEqual([]);
      await merged.close();
      const mine = await connect("/mcp/tools", serviceKey);
      const sessionId = (mine as unknown as { _transport: StreamableHTTPClientTransport })._transport.sessionId!;
      const borrowed = await fetch(`${gateway.url}/mcp/tools`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${other}`, "mcp-session-id": sessionId },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 1 } } }),
      });
      expect(borrowed.status).toBe(404);
      await mine.close();
    });
  });
});

describe("sessions across replicas", () => {
  it("continues a session opened through one replica through another, sharing it in Redis", async () => {
    const database = await TEST_DATABASES[1].create();
    const server = await startSdkMcpServer({ name: "shared" });
    const shared = { GATEWAY_DATABASE_URL: database.url, GATEWAY_REDIS_URL: testRedisUrl(), GATEWAY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64") };
    const first = await startGateway(shared);
    const second = await startGateway({ ...shared, GATEWAY_ADMIN_KEY: first.adminKey });
    try {
      await call(first, "POST", "/v1/mcp-servers", { body: { server_label: "shared", server_url: server.url } });
      const client = new Client({ name: "agent", version: "1" });
      const transport = new StreamableHTTPClientTransport(new URL(`${first.url}/mcp/shared`), { requestInit: { headers: { authorization: `Bearer ${first.adminKey}` } } });
      await client.connect(transport);
      const response = await fetch(`${second.url}/mcp/shared`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${first.adminKey}`, "mcp-session-id": transport.sessionId! },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "add", arguments: { a: 40, b: 2 } } }),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("SUM=42");
      expect(server.initializations()).toBe(1);
      await client.close();
    } finally {
      await second.close();
      await first.close();
      await server.close();
      await database.cleanup();
    }
  });
});
