import { request as httpRequest } from "node:http";
import type { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { OpenAIRealtimeWS } from "openai/realtime/ws";
import { connect, type AddressInfo } from "node:net";
import { openStore } from "../src/store/open-store.ts";
import { startBunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { openaiClient, startGateway, startUpstream, storedLog, upstreamHeaders, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.on({ userMessage: "hello" }, { content: "Hi from realtime." });
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

interface Opened {
  socket: WebSocket;
  logId: string | undefined;
  events: Array<Record<string, any>>;
  next(type: string): Promise<Record<string, any>>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a session through the gateway and collects its events in order. */
function open(url: string, headers: Record<string, string>, protocols?: string[]): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers });
    const events: Array<Record<string, any>> = [];
    const waiters: Array<{ type: string; resolve: (event: Record<string, any>) => void }> = [];
    let logId: string | undefined;
    socket.on("upgrade", (response) => (logId = response.headers["x-gateway-log-id"] as string | undefined));
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      const event = JSON.parse(data.toString()) as Record<string, any>;
      events.push(event);
      for (const waiter of waiters.filter((w) => w.type === event.type)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    });
    const closed = new Promise<{ code: number; reason: string }>((done) => socket.on("close", (code, reason) => done({ code, reason: reason.toString() })));
    const next = (type: string): Promise<Record<string, any>> => {
      const seen = events.find((event) => event.type === type);
      return seen ? Promise.resolve(seen) : new Promise((done) => waiters.push({ type, resolve: done }));
    };
    socket.on("open", () => resolve({ socket, logId, events, next, closed }));
    socket.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: text })));
    });
    socket.on("error", reject);
  });
}

const wsUrl = (gateway: RunningGateway, model: string): string => `${gateway.url.replace("http", "ws")}/v1/realtime?model=${encodeURIComponent(model)}`;

describe("GET /v1/realtime (WebSocket) under Node", () => {
  it("relays a session with aimock both ways, in order, and logs it once", async () => {
    const session = await open(wsUrl(gateway, "gpt-realtime"), { ...upstreamHeaders(gateway, upstream), authorization: `Bearer ${UPSTREAM_KEY}` }, ["realtime"]);
    expect(session.socket.protocol).toBe("realtime");
    await session.next("session.created");
    session.socket.send(JSON.stringify({ type: "session.update", session: { type: "realtime", instructions: "Be brief.", output_modalities: ["text"] } }));
    await session.next("session.updated");
    session.socket.send(JSON.stringify({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] } }));
    session.socket.send(JSON.stringify({ type: "response.create" }));
    const done = await session.next("response.done");
    expect(done.response.status).toBe("completed");
    const types = session.events.map((event) => event.type);
    expect(types[0]).toBe("session.created");
    expect(types.indexOf("session.updated")).toBeLessThan(types.indexOf("response.created"));
    expect(types.indexOf("response.created")).toBeLessThan(types.indexOf("response.done"));
    const text = session.events.filter((event) => /text\.delta$/.test(event.type)).map((event) => event.delta).join("");
    expect(text).toBe("Hi from realtime.");
    session.socket.close(1000, "bye");
    await session.closed;

    expect(upstream.getRequests().some((entry) => entry.path === "/v1/realtime")).toBe(true);
    const log = await waitForLog(session.logId!);
    expect(log).toMatchObject({ route: "createRealtimeSession", method: "GET", path: "/v1/realtime", status: 101, stream: true, provider: "openai", model: "gpt-realtime" });
    const body = JSON.parse(log.responseBody!);
    expect(body.events.upstream["response.done"]).toBe(1);
    expect(body.events.client).toMatchObject({ "session.update": 1, "conversation.item.create": 1, "response.create": 1 });
  });

  it("serves the official client's OpenAIRealtimeWS, with the gateway's headers as its socket options", async () => {
    const client = openaiClient(gateway, upstream);
    const { hostname, port } = new URL(gateway.url);
    // The client always dials wss://; TLS is a proxy's job in front of the gateway, so here the
    // socket goes to the gateway's plain port (everything above TCP is the client's own code).
    const createConnection = () => connect(Number(port), hostname);
    const realtime = new OpenAIRealtimeWS({ model: "gpt-realtime", options: { headers: upstreamHeaders(gateway, upstream), createConnection } }, client);
    const seen: string[] = [];
    realtime.on("event", (event) => seen.push(event.type));
    const failed = new Promise<never>((_, reject) => realtime.on("error", reject));
    await Promise.race([new Promise((resolve) => realtime.socket.once("open", resolve)), failed]);
    const done = new Promise<{ response: { status?: string } }>((resolve) => realtime.on("response.done", resolve));
    realtime.send({ type: "session.update", session: { type: "realtime", output_modalities: ["text"] } });
    realtime.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] } });
    realtime.send({ type: "response.create" });
    expect((await Promise.race([done, failed])).response.status).toBe("completed");
    realtime.close();
    expect(seen[0]).toBe("session.created");
    expect(seen).toContain("response.output_text.delta");
    expect(seen.at(-1)).toBe("response.done");
  });

  it("refuses a wrong key with 401 before the upgrade", async () => {
    const refused = await open(wsUrl(gateway, "gpt-realtime"), { ...upstreamHeaders(gateway, upstream), "x-gateway-api-key": "wrong" }).catch((error) => error);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).error.code).toBe("invalid_api_key");
  });

  it("refuses a session without a provider with 400, and a plain GET with 426", async () => {
    const refused = await open(wsUrl(gateway, "gpt-realtime"), { "x-gateway-api-key": gateway.adminKey }).catch((error) => error);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe("unknown_provider");
    const plain = await fetch(`${gateway.url}/v1/realtime?model=gpt-realtime`, { headers: upstreamHeaders(gateway, upstream) });
    expect(plain.status).toBe(426);
    expect((await plain.json()).error.code).toBe("upgrade_required");
  });

  it("refuses an upgrade without a valid WebSocket key or version before opening anything upstream", async () => {
    const before = upstream.getRequests().filter((entry) => entry.path === "/v1/realtime").length;
    for (const extra of [{ "sec-websocket-version": "13" }, { "sec-websocket-key": "not-a-key", "sec-websocket-version": "13" }, { "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "8" }]) {
      const answered = await new Promise<number>((resolve, reject) => {
        const url = new URL(wsUrl(gateway, "gpt-realtime").replace("ws", "http"));
        const sent = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { ...upstreamHeaders(gateway, upstream), connection: "Upgrade", upgrade: "websocket", ...extra } });
        sent.on("response", (response) => resolve(response.statusCode ?? 0));
        sent.on("upgrade", () => resolve(101));
        sent.on("error", reject);
        sent.end();
      });
      expect(answered, JSON.stringify(extra)).toBe(400);
    }
    expect(upstream.getRequests().filter((entry) => entry.path === "/v1/realtime").length).toBe(before);
  });

  it("takes the gateway key as a subprotocol and answers realtime", async () => {
    const { "x-gateway-api-key": key, ...rest } = upstreamHeaders(gateway, upstream);
    const session = await open(wsUrl(gateway, "gpt-realtime"), rest, ["realtime", `gateway-key.${key}`]);
    expect(session.socket.protocol).toBe("realtime");
    await session.next("session.created");
    session.socket.close();
    await session.closed;
  });

  it("sums usage over response.done events, relays binary, and closes the client when the upstream closes", async () => {
    const scripted = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    const seen: Array<Record<string, unknown>> = [];
    scripted.on("connection", (socket, request) => {
      seen.push({ url: request.url, authorization: request.headers.authorization, beta: request.headers["openai-beta"], protocol: request.headers["sec-websocket-protocol"] });
      socket.send(JSON.stringify({ type: "session.created", session: {} }));
      socket.on("message", (data, isBinary) => {
        if (isBinary) return socket.send(data, { binary: true });
        socket.send(JSON.stringify({ type: "response.done", response: { usage: { total_tokens: 15, input_tokens: 10, output_tokens: 5, input_token_details: { cached_tokens: 4 } } } }));
        socket.send(JSON.stringify({ type: "response.done", response: { usage: { total_tokens: 10, input_tokens: 7, output_tokens: 3, input_token_details: { cached_tokens: 1 } } } }));
        socket.close(4000, "scripted end");
      });
    });
    await new Promise((resolve) => scripted.once("listening", resolve));
    const port = (scripted.address() as AddressInfo).port;
    try {
      const session = await open(wsUrl(gateway, "gpt-realtime"), {
        ...upstreamHeaders(gateway, upstream),
        "x-gateway-custom-host": `http://127.0.0.1:${port}/v1`,
        authorization: `Bearer ${UPSTREAM_KEY}`,
        "openai-beta": "realtime=v1",
      });
      expect(seen).toEqual([{ url: "/v1/realtime?model=gpt-realtime", authorization: `Bearer ${UPSTREAM_KEY}`, beta: "realtime=v1", protocol: undefined }]);
      await session.next("session.created");
      const echoed = new Promise<Buffer>((resolve) => session.socket.once("message", (data, isBinary) => isBinary && resolve(data as Buffer)));
      session.socket.send(Buffer.from([1, 2, 3, 255]));
      expect([...(await echoed)]).toEqual([1, 2, 3, 255]);
      session.socket.send(JSON.stringify({ type: "response.create" }));
      expect(await session.closed).toEqual({ code: 4000, reason: "scripted end" });
      const log = await waitForLog(session.logId!);
      expect(log).toMatchObject({ status: 101, promptTokens: 17, completionTokens: 8, totalTokens: 25, cachedTokens: 5 });
      expect(JSON.parse(log.responseBody!).binary_messages).toEqual({ client: 1, upstream: 1 });
    } finally {
      await new Promise((resolve) => scripted.close(resolve));
    }
  });
});

describe("GET /v1/realtime (WebSocket) under Bun", () => {
  it("relays a session through bun src/server/bun.ts, and SIGTERM closes an open one with 1001 and logs both", async () => {
    const databaseUrl = sqliteTestUrl();
    const bun = await startBunGateway(databaseUrl);
    const { adminKey } = bun;
    try {
      const headers = { "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` };
      const endpoint = `${bun.url.replace("http", "ws")}/v1/realtime?model=gpt-realtime`;

      const refused = await open(endpoint, { ...headers, "x-gateway-api-key": "wrong" }).catch((error) => error);
      expect(refused.status).toBe(401);

      const session = await open(endpoint, headers, ["realtime", `gateway-key.${adminKey}`]);
      expect(session.socket.protocol).toBe("realtime");
      await session.next("session.created");
      session.socket.send(JSON.stringify({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] } }));
      session.socket.send(JSON.stringify({ type: "response.create" }));
      await session.next("response.done");
      const text = session.events.filter((event) => /text\.delta$/.test(event.type)).map((event) => event.delta).join("");
      expect(text).toBe("Hi from realtime.");
      session.socket.close(1000);
      expect((await session.closed).code).toBe(1000);

      const open2 = await open(endpoint, { ...headers, "x-gateway-api-key": adminKey });
      await open2.next("session.created");
      const exited = bun.stop();
      expect((await open2.closed).code).toBe(1001);
      expect(await exited).toBe(0);
      expect(bun.stderr()).toBe("");

      const store = await openStore(databaseUrl);
      try {
        for (const id of [session.logId!, open2.logId!]) {
          const record = await store.logs.get(id, "00000000-0000-4000-8000-000000000002");
          expect(record).toMatchObject({ route: "createRealtimeSession", status: 101, stream: true, provider: "openai", model: "gpt-realtime" });
        }
        const first = await store.logs.get(session.logId!, "00000000-0000-4000-8000-000000000002");
        expect(JSON.parse(first!.responseBody!).events.upstream["response.done"]).toBe(1);
        expect(JSON.parse(first!.responseBody!).closed_by).toMatchObject({ side: "client", code: 1000 });
        const second = await store.logs.get(open2.logId!, "00000000-0000-4000-8000-000000000002");
        expect(JSON.parse(second!.responseBody!).closed_by).toMatchObject({ side: "gateway", code: 1001 });
      } finally {
        await store.close();
      }
    } finally {
      if (bun.child.exitCode === null) bun.child.kill("SIGKILL");
      await removeSqliteTestDatabase(databaseUrl);
    }
  }, 60_000);
});

async function waitForLog(id: string) {
  for (let i = 0; i < 50; i += 1) {
    const found = await storedLog(gateway, id).catch(() => null);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return storedLog(gateway, id);
}
