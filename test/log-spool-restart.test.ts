import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { createClient } from "@libsql/client";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { startUpstream } from "./support/harness.ts";

/**
 * The embedded store under `npm start` (Bun) when it cannot be written: locked by another
 * process, then the gateway killed with SIGKILL (the spool is replayed by the next process);
 * and on a full disk (records wait in memory and are stored once there is room). Client 200s
 * are counted against stored records: none lost, none doubled.
 */

let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("ping", { content: "pong", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
});

afterAll(async () => {
  await upstream?.stop();
});

async function send(gateway: BunGateway, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": gateway.adminKey,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": `${upstream.url}/v1`,
        authorization: "Bearer sk-spool-upstream-0123456789",
      },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: i % 2 === 1, messages: [{ role: "user", content: "ping" }] }),
    });
    const text = await response.text();
    expect(response.status, text.slice(0, 200)).toBe(200);
    ids.push(response.headers.get("x-gateway-log-id") ?? "");
  }
  return ids;
}

/** Log ids in the spool files of a data directory, in file order. */
async function spooledIds(dataDir: string): Promise<string[]> {
  const dir = join(dataDir, "log-spool");
  const files = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith(".jsonl") && name.startsWith("spool-"));
  const ids: string[] = [];
  for (const file of files) {
    for (const line of (await readFile(join(dir, file), "utf8")).split("\n").filter(Boolean)) {
      for (const packed of JSON.parse(line) as unknown[][]) ids.push(String(packed[0]));
    }
  }
  return ids;
}

async function storedCounts(databaseUrl: string): Promise<{ logs: number; distinct: number; rolled: number; ids: string[] }> {
  const client = createClient({ url: databaseUrl });
  try {
    const rows = await client.execute("select id from logs");
    const rolled = await client.execute("select coalesce(sum(requests), 0) as rolled from log_rollups where dim = 'all'");
    const ids = rows.rows.map((row) => String(row.id));
    return { logs: ids.length, distinct: new Set(ids).size, rolled: Number(rolled.rows[0]?.rolled), ids };
  } finally {
    client.close();
  }
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Unmounts a test's tmpfs; a file still held open a moment after its process ended detaches it lazily. */
async function unmount(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (spawnSync("umount", [dir]).status === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  spawnSync("umount", ["-l", dir]);
}

describe("the embedded store locked, then SIGKILL", () => {
  it("spools what it cannot store and the next process stores every record once", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gateway-spool-kill-"));
    const databaseUrl = `file:${join(dataDir, "gateway.db")}`;
    const env = { GATEWAY_LOG_FLUSH_INTERVAL_MS: "20" };
    let gateway = await startBunGateway(databaseUrl, env);
    try {
      const stored = await send(gateway, 6);
      await waitFor(async () => (await storedCounts(databaseUrl)).logs === 6, 10_000, "the first records");

      // Another process holds the write lock: every insert of the gateway fails as busy.
      const locker = createClient({ url: databaseUrl });
      const lock = await locker.transaction("write");
      const spooled = await send(gateway, 10);
      await waitFor(async () => (await spooledIds(dataDir)).length === spooled.length, 60_000, "every record spooled");
      expect(await spooledIds(dataDir)).toEqual(spooled);
      expect(gateway.stderr()).toContain("the log store is unavailable");
      gateway.child.kill("SIGKILL");
      await new Promise((resolve) => gateway.child.once("exit", resolve));
      await lock.rollback();
      locker.close();

      gateway = await startBunGateway(databaseUrl, env);
      const later = await send(gateway, 4);
      const all = [...stored, ...spooled, ...later];
      await waitFor(async () => (await storedCounts(databaseUrl)).logs >= all.length, 20_000, "the replay");
      const counts = await storedCounts(databaseUrl);
      expect(counts.ids.sort()).toEqual([...all].sort());
      expect(counts).toMatchObject({ logs: all.length, distinct: all.length, rolled: all.length });
      await waitFor(async () => (await spooledIds(dataDir)).length === 0, 10_000, "an empty spool");
    } finally {
      if (gateway.child.exitCode === null) await gateway.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the embedded store on a full disk", () => {
  it("keeps serving, says so in its own log, and stores every record once there is room", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gateway-disk-full-"));
    await mkdir(dataDir, { recursive: true });
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", dataDir], { encoding: "utf8" });
    expect(mounted.status, `mounting a small tmpfs (the tests run as root): ${mounted.stderr}`).toBe(0);
    const databaseUrl = `file:${join(dataDir, "gateway.db")}`;
    const gateway = await startBunGateway(databaseUrl, { GATEWAY_LOG_FLUSH_INTERVAL_MS: "20" });
    try {
      const first = await send(gateway, 4);
      await waitFor(async () => (await storedCounts(databaseUrl)).logs === 4, 10_000, "the first records");
      // Fill the disk to the last byte.
      const filler = join(dataDir, "filler");
      const chunk = Buffer.alloc(256 * 1024, 1);
      for (;;) {
        try {
          await writeFile(filler, chunk, { flag: "a" });
        } catch {
          break;
        }
      }
      for (let size = 4096; size >= 1; size = Math.floor(size / 2)) {
        while (await writeFile(filler, Buffer.alloc(size, 1), { flag: "a" }).then(() => true, () => false));
      }
      const during = await send(gateway, 12);
      await waitFor(async () => gateway.stderr().includes("the log store is unavailable"), 30_000, "the outage in the gateway's log");
      expect(gateway.stderr()).toMatch(/disk is full|SQLITE_FULL/i);
      await rm(filler);
      const all = [...first, ...during];
      await waitFor(async () => (await storedCounts(databaseUrl)).logs >= all.length, 30_000, "the records kept in memory");
      const counts = await storedCounts(databaseUrl);
      expect(counts.ids.sort()).toEqual([...all].sort());
      expect(counts).toMatchObject({ logs: all.length, distinct: all.length, rolled: all.length });
    } finally {
      await gateway.stop();
      await unmount(dataDir);
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
