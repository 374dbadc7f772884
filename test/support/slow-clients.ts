import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { startBunGateway, startGatewayProcess, type BunGateway } from "./bun-gateway.ts";
import { freePort } from "./harness.ts";

export type Runtime = "bun" | "node";

/**
 * The gateway's real entry point under `runtime`: `npm start` (Bun) or `npm run start:node`
 * (Node), on a free loopback port, healthy when this resolves.
 */
export function startRuntimeGateway(runtime: Runtime, databaseUrl: string, env: Record<string, string>): Promise<BunGateway> {
  if (runtime === "bun") return startBunGateway(databaseUrl, env);
  const entry = { command: process.execPath, args: ["--import", "tsx", "src/server/node.ts"], keyPrefix: "node-e2e", healthyWithinMs: 30_000 };
  return startGatewayProcess(entry, databaseUrl, env);
}

/** The headers of a chat completion through `gateway` to the aimock at `upstreamUrl`. */
export function chatHeaders(gateway: BunGateway, upstreamUrl: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-gateway-api-key": gateway.adminKey,
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": `${upstreamUrl}/v1`,
    authorization: "Bearer sk-upstream",
  };
}

/** One well-behaved chat completion, read to the end; resolves with its status. */
export async function steadyChat(gateway: BunGateway, upstreamUrl: string): Promise<number> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: chatHeaders(gateway, upstreamUrl),
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "steady" }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** VmRSS of a process, MiB (Linux). */
export function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match?.[1]) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) / 1024;
}

/** A raw TCP connection to the gateway, with when it was closed (by either side) and what it heard. */
export interface RawConnection {
  socket: Socket;
  /** Resolves with `performance.now()` at close. */
  closed: Promise<number>;
  received(): string;
}

export async function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on("error", () => undefined);
  let received = "";
  socket.on("data", (data) => (received += String(data)));
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now())));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { socket, closed, received: () => received };
}

/** Writes `text` one byte every `everyMs` until it is written or the socket closes. */
export function trickle(connection: RawConnection, text: string, everyMs: number): () => void {
  let at = 0;
  const timer = setInterval(() => {
    if (connection.socket.destroyed || at >= text.length) return clearInterval(timer);
    connection.socket.write(text[at++]!);
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * A well-behaved client meanwhile: sends `request` (a real proxied call) over and over until
 * stopped, and keeps each one's status and latency (ms).
 */
export function steadyClient(request: () => Promise<number>, pauseMs = 50): { stop(): Promise<Array<{ status: number; ms: number }>> } {
  const results: Array<{ status: number; ms: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const status = await request().catch(() => 0);
      results.push({ status, ms: performance.now() - started });
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return results;
    },
  };
}

/** The p-th percentile of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
