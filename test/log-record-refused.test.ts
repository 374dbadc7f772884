import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { startGateway, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";
import { startBunGateway } from "./support/bun-gateway.ts";
import { postgresTestUrl, sqliteTestDatabase, type TestDatabase } from "./support/databases.ts";

/**
 * A record the store refuses for what it holds (here: a spooled line that lacks its fields) is
 * set aside in `rejected.jsonl`, even when it is alone in its batch: it must not pass for a
 * store outage, which would spool every later record and never store it. An upstream reporting
 * 3 billion prompt tokens, past PostgreSQL's integer, is stored with the count capped.
 */

const HUGE = 3_000_000_000;

let upstream: RawUpstream;

beforeAll(async () => {
  upstream = await startRawUpstream((body: { user?: string }, res) => {
    const prompt = body?.user === "huge" ? HUGE : 3;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 },
    }));
  });
});

afterAll(async () => {
  await upstream?.close();
});

for (const [name, open] of [["PostgreSQL", postgresTestUrl], ["libSQL", sqliteTestDatabase]] as const) {
  describe(`a record the store refuses (${name})`, () => {
    let database: TestDatabase;
    let gateway: RunningGateway;
    let spoolDir: string;

    beforeAll(async () => {
      database = await open();
      spoolDir = mkdtempSync(join(tmpdir(), "gateway-refused-"));
      // A line an older or damaged spool may hold: JSON, but not a record the store can take.
      writeFileSync(join(spoolDir, "spool-0.jsonl"), "[[1,2]]\n");
      gateway = await startGateway({ GATEWAY_DATABASE_URL: database.url, GATEWAY_LOG_SPOOL_DIR: spoolDir, GATEWAY_LOG_FLUSH_INTERVAL_MS: 20 });
    });

    afterAll(async () => {
      await gateway?.close();
      await database?.cleanup();
      rmSync(spoolDir, { recursive: true, force: true });
    });

    it("is set aside alone, and the records after it are stored", async () => {
      const client = new OpenAI({
        baseURL: `${gateway.url}/v1`,
        apiKey: "sk-upstream-0123456789",
        defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url },
        maxRetries: 0,
      });
      await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], user: "huge" });
      // Alone in its batch: the next records come after its flush.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let i = 0; i < 5; i++) await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], user: "after" });

      let stored = 0;
      for (let attempt = 0; attempt < 50 && stored < 5; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const logs = await fetch(`${gateway.url}/v1/logs?user=after&limit=10`, { headers: { "x-gateway-api-key": gateway.adminKey } });
        stored = ((await logs.json()) as { data: unknown[] }).data.length;
      }
      expect(stored).toBe(5);
      expect(gateway.gateway.deps.logWriter.storeDown).toBe(false);
      const rejected = existsSync(join(spoolDir, "rejected.jsonl")) ? readFileSync(join(spoolDir, "rejected.jsonl"), "utf8") : "";
      expect(rejected).toContain("[1,2,null");
      expect(rejected).not.toContain(String(HUGE));
      const huge = await fetch(`${gateway.url}/v1/logs?user=huge&limit=10`, { headers: { "x-gateway-api-key": gateway.adminKey } });
      const [record] = ((await huge.json()) as { data: { usage: { prompt_tokens: number } }[] }).data;
      expect(record?.usage.prompt_tokens).toBe(2_147_483_647);
    }, 30_000);
  });
}

// `npm start` on an SQLite file writes logs from a worker thread: the store's error crosses it
// with its name and code, or a record the store cannot bind would pass for an outage.
describe("a spooled record the store cannot take, gateway run with Bun (SQLite file)", () => {
  it("is set aside, and the records after it are stored", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gateway-refused-bun-"));
    mkdirSync(join(dataDir, "log-spool"));
    writeFileSync(join(dataDir, "log-spool", "spool-0.jsonl"), '[["x","y","z",{},[]]]\n');
    const gateway = await startBunGateway(`file:${join(dataDir, "gateway.db")}`, { GATEWAY_LOG_FLUSH_INTERVAL_MS: "20" });
    try {
      const client = new OpenAI({
        baseURL: `${gateway.url}/v1`,
        apiKey: "sk-upstream-0123456789",
        defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url },
        maxRetries: 0,
      });
      for (let i = 0; i < 5; i++) await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], user: "after" });
      let stored = 0;
      for (let attempt = 0; attempt < 50 && stored < 5; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const logs = await fetch(`${gateway.url}/v1/logs?user=after&limit=10`, { headers: { "x-gateway-api-key": gateway.adminKey } });
        stored = ((await logs.json()) as { data: unknown[] }).data.length;
      }
      expect(stored, gateway.stderr()).toBe(5);
      expect(readFileSync(join(dataDir, "log-spool", "rejected.jsonl"), "utf8")).toContain('"x","y","z"');
    } finally {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
