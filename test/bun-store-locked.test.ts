import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startUpstream } from "./support/harness.ts";

/**
 * Under the real `npm start` (Bun) with the embedded store, another process holds the SQLite
 * file's write lock (`sqlite3`, `BEGIN EXCLUSIVE`) for longer than a write may wait. Control-plane
 * writes and feedback meanwhile wait asynchronously: `/health` stays fast throughout (p99 under
 * 50 ms), chats are answered, and each write is either stored once the lock goes or answered 503
 * with `Retry-After` once its wait runs out, never a stall of the process.
 */

const LOCK_HELD_MS = 6_500;

let upstream: LLMock;
let gateway: BunGateway;
let databaseUrl: string;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("ping", { content: "pong", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
  databaseUrl = sqliteTestUrl();
  gateway = await startBunGateway(databaseUrl);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

/** `sqlite3` holding the write lock of the file until `release` (it retries while the gateway writes). */
async function holdWriteLock(path: string): Promise<{ release(): Promise<void> }> {
  const child: ChildProcess = spawn("sqlite3", [path], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (data) => (out += String(data)));
  child.stderr!.on("data", (data) => (out += String(data)));
  child.stdin!.write(".timeout 2000\nBEGIN EXCLUSIVE;\nSELECT 'lock-' || 'held';\n");
  const deadline = Date.now() + 5_000;
  while (!out.includes("lock-held")) {
    if (Date.now() > deadline) throw new Error(`sqlite3 did not take the lock: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    release: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin!.end("COMMIT;\n.quit\n");
      await exited;
    },
  };
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

describe("a store file locked by another process, under npm start (Bun)", () => {
  it("never stalls the process: /health stays fast, chats are answered, writes wait and land or answer 503", async () => {
    const json = { "content-type": "application/json", "x-gateway-api-key": gateway.adminKey };
    const serviceKey = await fetch(`${gateway.url}/v1/api-keys`, { method: "POST", headers: json, body: JSON.stringify({ name: "feedback", role: "service" }) }).then(async (r) => {
      expect(r.status).toBe(201);
      return ((await r.json()) as { key: string }).key;
    });
    // Warm the key caches, so the chats below need no store read.
    expect((await fetch(`${gateway.url}/v1/configs`, { headers: json })).status).toBe(200);

    const lock = await holdWriteLock(databaseUrl.slice("file:".length));
    const lockedAt = performance.now();
    let running = true;
    const released = (async () => {
      await new Promise((resolve) => setTimeout(resolve, LOCK_HELD_MS));
      await lock.release();
      return performance.now();
    })();

    const health: number[] = [];
    const measureHealth = (async () => {
      while (running) {
        const started = performance.now();
        const response = await fetch(`${gateway.url}/health`);
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        health.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    const chats: { status: number; ms: number }[] = [];
    const chat = (async () => {
      while (running) {
        const started = performance.now();
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { ...json, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: "Bearer sk-locked-store-0123456789" },
          body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "ping" }] }),
        });
        await response.arrayBuffer();
        chats.push({ status: response.status, ms: performance.now() - started });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const writes: { what: string; status: number; retryAfter: string | null; startedAt: number; endedAt: number }[] = [];
    const write = (async () => {
      for (let index = 0; running; index++) {
        const what = index % 2 === 0 ? "config" : "feedback";
        const startedAt = performance.now();
        const response =
          what === "config"
            ? await fetch(`${gateway.url}/v1/configs`, { method: "POST", headers: json, body: JSON.stringify({ name: `locked ${index}`, config: { provider: "openai" } }) })
            : await fetch(`${gateway.url}/v1/feedback`, { method: "POST", headers: { ...json, "x-gateway-api-key": serviceKey }, body: JSON.stringify({ trace_id: `locked-${index}`, value: 1 }) });
        await response.arrayBuffer();
        writes.push({ what, status: response.status, retryAfter: response.headers.get("retry-after"), startedAt: startedAt - lockedAt, endedAt: performance.now() - lockedAt });
      }
    })();

    const releasedAt = (await released) - lockedAt;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await Promise.all([measureHealth, chat, write]);

    expect(health.length).toBeGreaterThan(100);
    expect(p99(health), `health latencies (ms): ${health.map(Math.round).join(",")}`).toBeLessThan(50);
    expect(chats.length).toBeGreaterThan(20);
    expect(chats.every((each) => each.status === 200), JSON.stringify(chats)).toBe(true);

    // The first write waits its 5 s out while the lock is held and is answered 503; the ones
    // still waiting when the lock goes are stored; after that, writes land at once.
    for (const each of writes) {
      expect([201, 503], JSON.stringify(each)).toContain(each.status);
      if (each.status === 503) expect(each.retryAfter).toBe("5");
    }
    expect(writes[0]).toMatchObject({ status: 503 });
    expect(writes[0]!.endedAt).toBeGreaterThan(4_500);
    const afterRelease = writes.filter((each) => each.endedAt > releasedAt);
    expect(afterRelease.length).toBeGreaterThan(2);
    expect(afterRelease.every((each) => each.status === 201)).toBe(true);
    expect(new Set(afterRelease.map((each) => each.what))).toEqual(new Set(["config", "feedback"]));
  }, 60_000);
});
