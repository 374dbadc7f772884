import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import type { BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startUpstream } from "./support/harness.ts";
import {
  chatHeaders as chatHeadersFor,
  openRaw,
  percentile,
  rssMiB,
  startRuntimeGateway,
  steadyChat as steadyChatThrough,
  steadyClient,
  type RawConnection,
  type Runtime,
} from "./support/slow-clients.ts";

/**
 * Thousands of idle keep-alive connections against the real entry points: each costs little
 * memory, other clients are served at their usual latency, and the gateway closes every one
 * once it has been idle for GATEWAY_IDLE_TIMEOUT_S (under Bun too, after a request turned the
 * connection's idle timeout off while it ran).
 */
const CONNECTIONS = 3000;
const IDLE_S = 8;

let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("steady", { content: "steady answer" });
  // A stream still arriving after the route has returned its answer (about half a second).
  upstream.onMessage("trickle", { content: "a stream that arrives over half a second" }, { chunkSize: 4, latency: 50 });
});

afterAll(async () => {
  await upstream?.stop();
});

describe.each<Runtime>(["bun", "node"])("%d idle keep-alive connections under %s".replace("%d", String(CONNECTIONS)), (runtime) => {
  let gateway: BunGateway;
  const databaseUrl = sqliteTestUrl();

  beforeAll(async () => {
    gateway = await startRuntimeGateway(runtime, databaseUrl, { GATEWAY_IDLE_TIMEOUT_S: String(IDLE_S) });
  });

  afterAll(async () => {
    if (gateway && gateway.child.exitCode === null) await gateway.stop();
    await removeSqliteTestDatabase(databaseUrl);
  });

  it("hold little memory each, leave other clients' latency alone, and are closed after the idle timeout", async () => {
    const pid = gateway.child.pid!;
    const chatHeaders = () => chatHeadersFor(gateway, upstream.url);
    const steadyChat = () => steadyChatThrough(gateway, upstream.url);
    // Warm the gateway up first, so the baseline holds what any served request leaves behind.
    for (let i = 0; i < 50; i++) expect(await steadyChat()).toBe(200);
    const baseline = rssMiB(pid);

    // Each connection serves one request, then sits idle with keep-alive.
    const idle: Array<{ connection: RawConnection; answeredAt: number }> = [];
    for (let batch = 0; batch < CONNECTIONS / 250; batch++) {
      const opened = await Promise.all(
        Array.from({ length: 250 }, async () => {
          const connection = await openRaw(gateway.url);
          connection.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
          while (!/\r\n\r\n[\s\S]*\}/.test(connection.received())) await new Promise((resolve) => setTimeout(resolve, 5));
          return { connection, answeredAt: performance.now() };
        }),
      );
      idle.push(...opened);
    }
    const held = rssMiB(pid);
    // Some connections served a relayed stream first, one that ended at once or one that
    // trickled in after the route returned: its end sets the idle timeout again too.
    const streamed = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const body = JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: index % 2 === 0 ? "steady" : "trickle" }] });
        const connection = await openRaw(gateway.url);
        const head = Object.entries({ ...chatHeaders(), "content-length": String(Buffer.byteLength(body)) }).map(([name, value]) => `${name}: ${value}\r\n`);
        connection.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${head.join("")}\r\n${body}`);
        while (!connection.received().includes("[DONE]")) await new Promise((resolve) => setTimeout(resolve, 5));
        return { connection, answeredAt: performance.now() };
      }),
    );
    idle.push(...streamed);
    const perConnectionKiB = ((held - baseline) * 1024) / CONNECTIONS;
    console.info(`${runtime}: ${CONNECTIONS} idle connections, RSS ${baseline.toFixed(1)} → ${held.toFixed(1)} MiB, ${perConnectionKiB.toFixed(1)} KiB each`);
    expect(perConnectionKiB).toBeLessThan(64);
    expect(idle.filter(({ connection }) => !connection.received().startsWith("HTTP/1.1 200"))).toHaveLength(0);

    const client = steadyClient(steadyChat, 20);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const results = await client.stop();
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(percentile(results.map((r) => r.ms), 50)).toBeLessThan(100);
    expect(idle.filter(({ connection }) => connection.socket.destroyed)).toHaveLength(0);

    // Closed by the gateway (the client never closes them): each after about IDLE_S of quiet.
    const waited = await Promise.all(idle.map(async ({ connection, answeredAt }) => (await connection.closed) - answeredAt));
    console.info(`${runtime}: closed ${(Math.min(...waited) / 1000).toFixed(1)}–${(Math.max(...waited) / 1000).toFixed(1)} s after their answer`);
    // Bun counts its timeouts in 4 s ticks, so it closes up to a tick early or late.
    const tick = runtime === "bun" ? 4000 : 0;
    expect(Math.min(...waited)).toBeGreaterThan(IDLE_S * 1000 - tick - 1500);
    expect(Math.max(...waited)).toBeLessThan(IDLE_S * 1000 + tick + 6000);
  }, 60_000);
});
