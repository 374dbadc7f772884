import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { dirname } from "node:path";
import { startBunGateway, type BunGateway } from "./bun-gateway.ts";
import { freePort } from "./harness.ts";

export type Runtime = "bun" | "node";

/**
 * The gateway's real entry point under `runtime`: `npm start` (Bun) or `npm run start:node`
 * (Node), on a free loopback port, healthy when this resolves.
 */
export async function startRuntimeGateway(runtime: Runtime, databaseUrl: string, env: Record<string, string>): Promise<BunGateway> {
  if (runtime === "bun") return startBunGateway(databaseUrl, env);
  const port = await freePort();
  const adminKey = `node-e2e-${randomBytes(12).toString("hex")}`;
  const child = spawn(process.execPath, ["--import", "tsx", "src/server/node.ts"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      GATEWAY_DATABASE_URL: databaseUrl,
      GATEWAY_DATA_DIR: dirname(databaseUrl.slice("file:".length)),
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_QUIET: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (data) => (stderr += String(data)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited early with ${child.exitCode}: ${stderr}`);
    if (await fetch(`${url}/health`).then((response) => response.ok, () => false)) break;
    if (attempt >= 600) {
      child.kill("SIGKILL");
      throw new Error("the Node gateway did not become healthy within 30 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, adminKey, child, stderr: () => stderr, stop: () => (child.kill("SIGTERM"), exited) };
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
