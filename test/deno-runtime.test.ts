import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import WebSocket from "ws";
import { openStore } from "../src/store/open-store.ts";
import type { BunGateway } from "./support/bun-gateway.ts";
import { startDenoGateway } from "./support/deno-gateway.ts";
import { postgresTestUrl, removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { testRedisUrl } from "./support/services.ts";
import { startUpstream } from "./support/harness.ts";

/**
 * `npm run start:deno` as users run it (the script's own command and flags), on an embedded
 * store: chat completions plain and streamed through the official client, their logs, and a
 * SIGTERM that lets the requests in flight finish and keeps their logs; a realtime session; and
 * a gateway on PostgreSQL and Redis.
 */
let upstream: LLMock;
const databaseUrl = sqliteTestUrl();
const realtimeDatabaseUrl = sqliteTestUrl();
const WORKSPACE = "00000000-0000-4000-8000-000000000002";

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("deno hello", { content: "Hello from Deno" });
  upstream.onMessage("deno slow answer", { content: "A slow but complete answer" }, { chaos: { latencyMs: 2_000 } });
  upstream.on({ userMessage: "deno realtime" }, { content: "Hi from realtime under Deno." });
  upstream.onMessage("deno trickle", { content: "a stream that trickles in over two seconds" }, { chunkSize: 4, latency: 180 });
});

afterAll(async () => {
  await upstream?.stop();
  await removeSqliteTestDatabase(databaseUrl);
  await removeSqliteTestDatabase(realtimeDatabaseUrl);
});

function clientOf(gateway: BunGateway): OpenAI {
  return new OpenAI({
    apiKey: "sk-upstream",
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` },
  });
}

async function streamed(client: OpenAI, content: string): Promise<string> {
  const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content }] });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  return text;
}

interface LogList {
  data: Array<{ id: string; status: number; stream: boolean }>;
}

describe("the Deno entry point (npm run start:deno)", () => {
  it("serves chat completions plain and streamed, logs them, and drains on SIGTERM", async () => {
    const gateway = await startDenoGateway(databaseUrl, { GATEWAY_QUIET: "" });
    let stdout = "";
    gateway.child.stdout?.on("data", (data) => (stdout += String(data)));
    try {
      const client = clientOf(gateway);
      const plain = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "deno hello" }] });
      expect(plain.choices[0]?.message.content).toBe("Hello from Deno");
      expect(await streamed(client, "deno hello")).toBe("Hello from Deno");

      // Both are stored (the log worker writes them within a second).
      let logs: LogList = { data: [] };
      for (let attempt = 0; attempt < 100 && logs.data.length < 2; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        logs = (await (await fetch(`${gateway.url}/v1/logs`, { headers: { "x-gateway-api-key": gateway.adminKey } })).json()) as LogList;
      }
      expect(logs.data.map((log) => [log.status, log.stream]).sort()).toEqual([
        [200, false],
        [200, true],
      ]);
      expect(stdout).toMatch(/\(Deno 2\.\d+\.\d+, store: sqlite\)/);
      // What Deno's server does not enforce is said at start.
      expect(stdout).toContain("GATEWAY_HEADERS_TIMEOUT_MS and GATEWAY_IDLE_TIMEOUT_S have no effect");

      // Two requests in flight when SIGTERM arrives: both finish, then the process exits 0.
      const slow = client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "deno slow answer" }] });
      const trickle = streamed(client, "deno trickle");
      await new Promise((resolve) => setTimeout(resolve, 500));
      const signalledAt = Date.now();
      const exited = gateway.stop();
      const [answer, text] = await Promise.all([slow, trickle]);
      expect(answer.choices[0]?.message.content).toBe("A slow but complete answer");
      expect(text).toBe("a stream that trickles in over two seconds");
      expect(Date.now() - signalledAt).toBeGreaterThan(500);
      expect(await exited).toBe(0);
      expect(gateway.stderr()).toBe("");
      expect(stdout).toContain("[gateway] SIGTERM: draining");
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
    }

    // Every request served was logged, the two drained ones too.
    const store = await openStore(databaseUrl);
    try {
      const { records } = await store.logs.list({ workspaceId: WORKSPACE, limit: 10 });
      expect(records).toHaveLength(4);
      expect(records.every((record) => record.success && record.status === 200)).toBe(true);
      const trickled = records.find((record) => record.stream && record.status === 200 && record.latencyMs > 1_000);
      expect(trickled).toBeDefined();
      const full = await store.logs.get(trickled!.id, WORKSPACE);
      expect(JSON.parse(full?.responseBody ?? "{}").choices[0].message.content).toBe("a stream that trickles in over two seconds");
    } finally {
      await store.close();
    }
  }, 120_000);

  it("relays a realtime session both ways and logs it; refuses a wrong key before the upgrade", async () => {
    const gateway = await startDenoGateway(realtimeDatabaseUrl);
    try {
      const url = `${gateway.url.replace("http", "ws")}/v1/realtime?model=gpt-realtime`;
      const headers = { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: "Bearer sk-upstream" };
      const socket = new WebSocket(url, ["realtime"], { headers });
      let logId: string | undefined;
      socket.on("upgrade", (response) => (logId = response.headers["x-gateway-log-id"] as string | undefined));
      const events: Array<{ type: string; delta?: string; response?: { status?: string } }> = [];
      const done = new Promise<void>((resolve, reject) => {
        socket.on("message", (data) => {
          const event = JSON.parse(String(data)) as (typeof events)[number];
          events.push(event);
          if (event.type === "response.done") resolve();
        });
        socket.on("error", reject);
      });
      await new Promise((resolve, reject) => {
        socket.once("open", resolve).once("error", reject);
        socket.once("unexpected-response", (_request, response) => reject(new Error(`the upgrade was answered HTTP ${response.statusCode}`)));
        setTimeout(() => reject(new Error("the upgrade was not answered within 20 s")), 20_000);
      });
      expect(socket.protocol).toBe("realtime");
      socket.send(JSON.stringify({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "deno realtime" }] } }));
      socket.send(JSON.stringify({ type: "response.create" }));
      await done;
      expect(events[0]?.type).toBe("session.created");
      expect(events.at(-1)?.response?.status).toBe("completed");
      expect(events.filter((event) => /text\.delta$/.test(event.type)).map((event) => event.delta).join("")).toBe("Hi from realtime under Deno.");
      const closed = new Promise<number>((resolve) => socket.once("close", resolve));
      socket.close(1000, "bye");
      expect(await closed).toBe(1000);

      expect(logId).toBeDefined();
      let log: { status?: number; route?: string } = {};
      for (let attempt = 0; attempt < 100 && log.status === undefined; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const response = await fetch(`${gateway.url}/v1/logs/${logId}`, { headers: { "x-gateway-api-key": gateway.adminKey } });
        if (response.ok) log = (await response.json()) as typeof log;
      }
      expect(log).toMatchObject({ status: 101, route: "createRealtimeSession" });

      const refused = await new Promise<number | undefined>((resolve) => {
        const wrong = new WebSocket(url, { headers: { ...headers, "x-gateway-api-key": "wrong" } });
        wrong.on("unexpected-response", (_request, response) => resolve(response.statusCode));
        wrong.on("open", () => resolve(101));
        wrong.on("error", () => resolve(undefined));
      });
      expect(refused).toBe(401);
      expect(await gateway.stop()).toBe(0);
      expect(gateway.stderr()).toBe("");
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
    }
  }, 120_000);

  it("serves and logs on PostgreSQL, with Redis", async () => {
    const postgres = await postgresTestUrl();
    const dataDir = await mkdtemp(join(tmpdir(), "deno-postgres-"));
    const gateway = await startDenoGateway(`file:${join(dataDir, "unused.db")}`, {
      GATEWAY_DATABASE_URL: postgres.url,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_REDIS_URL: testRedisUrl(),
    });
    try {
      expect(await streamed(clientOf(gateway), "deno hello")).toBe("Hello from Deno");
      expect(await gateway.stop()).toBe(0);
      expect(gateway.stderr()).toBe("");
      const store = await openStore(postgres.url);
      try {
        const { records } = await store.logs.list({ workspaceId: WORKSPACE, limit: 10 });
        expect(records.map((record) => [record.status, record.stream])).toEqual([[200, true]]);
      } finally {
        await store.close();
      }
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
      await postgres.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
