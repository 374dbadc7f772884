import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { startGateway, type RunningGateway } from "./support/harness.ts";
import { EXPECTED, runRebindingScenarios } from "./support/rebinding-scenarios.ts";

/**
 * SSRF at connect time: DNS rebinding of custom hosts and guardrail webhooks, certificate names
 * over a pinned address, and redirects, on Node (in this process) and on Bun (the same scenarios
 * in a Bun process): one table of outcomes for both runtimes.
 */
describe("DNS rebinding and redirects never reach a private address", () => {
  it("under Node: every scenario gives the expected outcome", async () => {
    expect(await runRebindingScenarios()).toEqual(EXPECTED);
  }, 60_000);

  it("under Bun: every scenario gives the same outcome", async () => {
    const { stdout } = await promisify(execFile)("node_modules/.bin/bun", ["test/support/rebinding-run.ts"], { timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { runtime: string; outcomes: unknown };
    expect(result.runtime).toBe("bun");
    expect(result.outcomes).toEqual(EXPECTED);
  }, 90_000);
});

/** A loopback WebSocket upstream that counts its connections and keeps sessions open. */
async function socketUpstream() {
  const server = createServer((_request, response) => response.writeHead(426).end());
  const wss = new WebSocketServer({ server });
  let connections = 0;
  const hosts: string[] = [];
  server.on("connection", () => connections++);
  wss.on("connection", (_socket, request) => hosts.push(String(request.headers.host)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    hosts,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Opens `/v1/realtime` through a gateway; the HTTP status of a refused upgrade, or 101. */
function openRealtime(gatewayUrl: string, headers: Record<string, string>): Promise<{ status: number; body: string; socket: WebSocket | null }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${gatewayUrl.replace("http", "ws")}/v1/realtime?model=gpt-realtime`, { headers });
    socket.on("open", () => resolve({ status: 101, body: "", socket }));
    socket.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body, socket: null }));
    });
    socket.on("error", () => undefined);
  });
}

describe("realtime sessions through a served gateway (Node)", () => {
  it("dial the checked address of a pinned name, and refuse a name rebinding to loopback before any connection", async () => {
    const upstream = await socketUpstream();
    const calls = new Map<string, number>();
    const staged = (table: Record<string, string[][]>) => async (hostname: string): Promise<string[]> => {
      const count = calls.get(hostname) ?? 0;
      calls.set(hostname, count + 1);
      const answers = table[hostname] ?? [];
      return answers[Math.min(count, answers.length - 1)] ?? [];
    };
    const pinning = await startGateway({ GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS: true }, { customHosts: { lookup: staged({ "rt.test": [["127.0.0.1"], ["10.9.9.9"]] }) } });
    const rebinding = await startGateway(
      { GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS: true },
      { customHosts: { lookup: staged({ localhost: [["93.184.215.14"], ["127.0.0.1"]] }), trustLoopback: false, cacheTtlMs: 0 } },
    );
    try {
      const headers = (gateway: RunningGateway, host: string) => ({ "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `http://${host}:${upstream.port}/v1`, authorization: "Bearer sk-upstream" });
      const pinned = await openRealtime(pinning.url, headers(pinning, "rt.test"));
      expect(pinned.status, pinned.body).toBe(101);
      pinned.socket?.terminate();
      expect(upstream.hosts).toEqual([`rt.test:${upstream.port}`]);
      expect(calls.get("rt.test")).toBe(1);

      const before = upstream.connections();
      const refused = await openRealtime(rebinding.url, headers(rebinding, "localhost"));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body).error.code).toBe("forbidden_custom_host");
      expect(upstream.connections() - before).toBe(0);
      expect(calls.get("localhost")).toBe(2);
    } finally {
      await Promise.all([pinning.close(), rebinding.close(), upstream.close()]);
    }
  }, 30_000);
});
