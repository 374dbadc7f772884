import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startSdkMcpServer, type SdkMcpServer } from "./support/sdk-mcp-server.ts";

/** The MCP gateway as users run it: `npm start` under Bun, the official SDK's client, concurrent sessions. */
let gateway: BunGateway;
let server: SdkMcpServer;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  server = await startSdkMcpServer({ name: "tools", token: "bun-stored-token-1234" });
  gateway = await startBunGateway(databaseUrl);
  const stored = await fetch(`${gateway.url}/v1/mcp-servers`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": gateway.adminKey },
    body: JSON.stringify({ server_label: "tools", server_url: server.url, authorization: "bun-stored-token-1234" }),
  });
  expect(stored.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await server?.close();
  await removeSqliteTestDatabase(databaseUrl);
});

async function connect(path: string): Promise<Client> {
  const client = new Client({ name: "agent", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${gateway.adminKey}` } } }));
  return client;
}

describe("the MCP gateway under npm start (Bun)", () => {
  it("serves a stored server and the merged one to the official client, progress included, sessions in parallel", async () => {
    const progress: number[] = [];
    const one = await connect("/mcp/tools");
    expect(await one.callTool({ name: "count", arguments: { n: 3 } }, undefined, { onprogress: (event) => progress.push(event.progress) })).toMatchObject({ content: [{ text: "counted 3" }] });
    expect(progress).toEqual([1, 2, 3]);
    const echoed = await one.callTool({ name: "echo_auth", arguments: {} });
    expect(JSON.stringify(echoed)).not.toContain("bun-stored-token-1234");
    await one.close();
    const clients = await Promise.all(Array.from({ length: 50 }, () => connect("/mcp")));
    const sums = await Promise.all(clients.map((client, index) => client.callTool({ name: "tools__add", arguments: { a: index, b: 1 } })));
    expect(sums.map((sum) => (sum.content as Array<{ text: string }>)[0]!.text)).toEqual(clients.map((_, index) => `SUM=${index + 1}`));
    await Promise.all(clients.map((client) => client.close()));
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  }, 60_000);
});
