import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startUpstream } from "./support/harness.ts";
import { chatHeaders, openRaw, percentile, rssMiB, startRuntimeGateway, steadyChat as steadyChatThrough, steadyClient, trickle, type Runtime } from "./support/slow-clients.ts";

/**
 * Slow and broken clients against the real entry points: slow-loris headers and bodies and a
 * client that never reads its stream are cut off within the documented time, hold little
 * memory, and a well-behaved client is served at its usual speed meanwhile.
 */
const HEADERS_TIMEOUT_MS = 3000;
const BODY_TIMEOUT_MS = 3000;
const STALL_TIMEOUT_MS = 2000;
/** Bun's parser closes a connection whose headers are incomplete after about 10 s (uWS, fixed; 4 s timer ticks). */
const BUN_HEADERS_LIMIT_MS = 16_000;

let upstream: LLMock;
let sse: { url: string; server: Server; written: number; closedAt: number | null };

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("steady", { content: "steady answer" });
  sse = await startEndlessSse();
});

afterAll(async () => {
  await upstream?.stop();
  sse?.server.closeAllConnections();
  await new Promise((resolve) => sse?.server.close(resolve));
});

describe.each<Runtime>(["bun", "node"])("slow and broken clients under %s (the real entry point)", (runtime) => {
  let gateway: BunGateway;
  const databaseUrl = sqliteTestUrl();
  const pid = (): number => gateway.child.pid!;

  beforeAll(async () => {
    gateway = await startRuntimeGateway(runtime, databaseUrl, {
      GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      GATEWAY_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      GATEWAY_STREAM_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS),
      GATEWAY_TRUSTED_CUSTOM_HOSTS: "127.0.0.1",
      GATEWAY_LOG_FLUSH_INTERVAL_MS: "20",
    });
  });

  afterAll(async () => {
    if (gateway && gateway.child.exitCode === null) await gateway.stop();
    await removeSqliteTestDatabase(databaseUrl);
  });

  const headers = () => chatHeaders(gateway, upstream.url);
  const steadyChat = () => steadyChatThrough(gateway, upstream.url);
  /** The well-behaved client's answers: every one a 200, at an unremarkable latency. */
  const expectServedMeanwhile = (results: Array<{ status: number; ms: number }>): void => {
    expect(results.length).toBeGreaterThan(10);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(percentile(results.map((r) => r.ms), 50)).toBeLessThan(250);
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(3000);
  };

  it("closes connections whose headers trickle in, within the headers deadline", async () => {
    const rssBefore = rssMiB(pid());
    const started = performance.now();
    const slow = await Promise.all(Array.from({ length: 40 }, () => openRaw(gateway.url)));
    const stops = slow.map((c) => trickle(c, `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nx-pad: ${"a".repeat(4000)}`, 250));
    const client = steadyClient(steadyChat);
    const closedAt = await Promise.all(slow.map((c) => c.closed));
    const results = await client.stop();
    stops.forEach((stop) => stop());

    const limit = runtime === "bun" ? BUN_HEADERS_LIMIT_MS : HEADERS_TIMEOUT_MS + 3000;
    for (const at of closedAt) expect(at - started).toBeLessThan(limit);
    // Not an instant refusal: each was held until its deadline, bytes arriving all the while.
    for (const at of closedAt) expect(at - started).toBeGreaterThan(HEADERS_TIMEOUT_MS - 500);
    // Node answers the envelope (408); Bun's parser closes without a word.
    if (runtime === "node") for (const c of slow) expect(c.received()).toMatch(/^HTTP\/1\.1 408 .*"code":"request_timeout"/s);
    expectServedMeanwhile(results);
    expect(rssMiB(pid()) - rssBefore).toBeLessThan(64);
  }, 40_000);

  it("answers 408 and closes connections whose JSON body trickles in, within GATEWAY_BODY_TIMEOUT_MS", async () => {
    const started = performance.now();
    const head = Object.entries({ ...headers(), "content-length": "20000" })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    const slow = await Promise.all(Array.from({ length: 40 }, () => openRaw(gateway.url)));
    for (const c of slow) c.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${head}\r\n{"model":"gpt-4o-mini","messages":[`);
    const stops = slow.map((c) => trickle(c, " ".repeat(20_000), 200));
    const client = steadyClient(steadyChat);
    const closedAt = await Promise.all(slow.map((c) => c.closed));
    const results = await client.stop();
    stops.forEach((stop) => stop());

    for (const at of closedAt) {
      expect(at - started).toBeGreaterThan(BODY_TIMEOUT_MS - 500);
      expect(at - started).toBeLessThan(BODY_TIMEOUT_MS + 5000);
    }
    for (const c of slow) {
      expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(c.received()).toContain('"code":"request_timeout"');
      expect(c.received()).toContain("GATEWAY_BODY_TIMEOUT_MS");
    }
    expectServedMeanwhile(results);
  }, 40_000);

  it("answers 408 to a chunked JSON body that stops, within GATEWAY_BODY_TIMEOUT_MS", async () => {
    const started = performance.now();
    const head = Object.entries({ ...headers(), "transfer-encoding": "chunked" })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    const stalled = await openRaw(gateway.url);
    stalled.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${head}\r\n10\r\n{"model":"gpt-4o\r\n`);
    const closedAt = await Promise.race([stalled.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), BODY_TIMEOUT_MS + 5000))]);
    stalled.socket.destroy();

    expect(closedAt).not.toBeNull();
    expect(closedAt! - started).toBeGreaterThan(BODY_TIMEOUT_MS - 500);
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(stalled.received()).toContain('"code":"request_timeout"');
  }, 20_000);

  it("answers 401 to a chunked body without a key before reading it, and holds none of it", async () => {
    const rssBefore = rssMiB(pid());
    const chunk = Buffer.alloc(1024 * 1024, 97);
    const senders = await Promise.all(Array.from({ length: 4 }, () => openRaw(gateway.url)));
    for (const c of senders) {
      c.socket.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n");
      for (let i = 0; i < 24 && !c.socket.destroyed; i++) c.socket.write(`100000\r\n${chunk}\r\n`);
    }
    // The body never ends: a gateway that read it before the key check would answer 408 at the
    // body timeout, so a 401 shows it did not wait, however late a loaded machine delivers it.
    const deadline = performance.now() + BODY_TIMEOUT_MS + 7_000;
    while (senders.some((c) => !c.received().startsWith("HTTP/1.1")) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const grown = rssMiB(pid()) - rssBefore;
    senders.forEach((c) => c.socket.destroy());

    for (const c of senders) {
      expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
      expect(c.received()).toContain('"code":"missing_api_key"');
    }
    // Four bodies of 24 MiB, if they were held whole before the key check.
    expect(grown).toBeLessThan(48);
  }, 20_000);

  it("holds a client that never reads its stream back (the upstream is not read to its end), then cuts it off as 499", async () => {
    const rssBefore = rssMiB(pid());
    sse.written = 0;
    sse.closedAt = null;
    const started = performance.now();
    const body = JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "endless" }] });
    const raw = await openRaw(gateway.url);
    const head = Object.entries({ ...headers(), "x-gateway-custom-host": sse.url, "content-length": String(Buffer.byteLength(body)) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    raw.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${head}\r\n${body}`);
    // Read the status line and headers (the log id), then read nothing more.
    while (!raw.received().includes("\r\n\r\n")) await new Promise((resolve) => setTimeout(resolve, 10));
    raw.socket.pause();
    const logId = /x-gateway-log-id: ([0-9a-f-]+)/i.exec(raw.received())?.[1];
    expect(logId).toBeDefined();

    const client = steadyClient(steadyChat);
    let peak = 0;
    while (sse.closedAt === null && performance.now() - started < 20_000) {
      peak = Math.max(peak, rssMiB(pid()));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const results = await client.stop();
    // Reading again, the client finds its connection ended by the gateway, the stream cut short.
    raw.socket.resume();
    const clientClosedAt = await Promise.race([raw.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);

    // Backpressure: the upstream could write 256 MiB but got no further than the buffers on the way.
    expect(sse.written).toBeLessThan(64 * 1024 * 1024);
    expect(peak - rssBefore).toBeLessThan(96);
    // The stall deadline aborted the upstream call and dropped the client's connection.
    expect(sse.closedAt).not.toBeNull();
    expect(sse.closedAt! - started).toBeLessThan(STALL_TIMEOUT_MS + 8000);
    expect(clientClosedAt).not.toBeNull();
    expect(raw.received()).not.toContain("[DONE]");
    expectServedMeanwhile(results);

    let record: { status?: number; error?: { code?: string } | null } = {};
    for (let attempt = 0; attempt < 100 && record.status === undefined; attempt++) {
      const response = await fetch(`${gateway.url}/v1/logs/${logId}`, { headers: { "x-gateway-api-key": gateway.adminKey } });
      if (response.ok) record = await response.json();
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(record.status).toBe(499);
    expect(JSON.stringify(record.error)).toContain("client_closed");
  }, 40_000);
});

/** An upstream that streams chat chunks (4 KiB each) up to 256 MiB, only as fast as they are read. */
async function startEndlessSse(): Promise<{ url: string; server: Server; written: number; closedAt: number | null }> {
  const chunk = Buffer.from(
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "x".repeat(4000) }, finish_reason: null }] })}\n\n`,
  );
  const state = { url: "", server: createServer(), written: 0, closedAt: null as number | null };
  state.server.on("request", (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => (state.closedAt = performance.now()));
      const pump = (): void => {
        while (!res.destroyed && state.written < 256 * 1024 * 1024) {
          state.written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end("data: [DONE]\n\n");
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/v1`;
  return state;
}
