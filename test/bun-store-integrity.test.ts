import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { createClient } from "@libsql/client";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startBunGateway } from "./support/bun-gateway.ts";
import { startUpstream } from "./support/harness.ts";

/**
 * The embedded store under the runtime users run (`npm start`, Bun), with inference and
 * control-plane writes at once: the file stays intact and nothing answered is lost.
 */

const CHAT_WORKERS = 16;
const ADMIN_WORKERS = 3;
const LOAD_MS = 8_000;

let upstream: LLMock;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("ping", { content: "pong" });
});

afterAll(async () => {
  await upstream?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

interface Tally {
  answered: Map<number, number>;
  created: { prompts: number; configs: number; guardrails: number };
  failures: string[];
}

const count = (tally: Tally, status: number): void => void tally.answered.set(status, (tally.answered.get(status) ?? 0) + 1);

describe("the embedded store under npm start (Bun)", () => {
  it("stays intact and keeps every acknowledged write under concurrent inference and admin writes", async () => {
    const gateway = await startBunGateway(databaseUrl);
    const headers = {
      "x-gateway-api-key": gateway.adminKey,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": `${upstream.url}/v1`,
      "content-type": "application/json",
    };
    const tally: Tally = { answered: new Map(), created: { prompts: 0, configs: 0, guardrails: 0 }, failures: [] };
    const until = Date.now() + LOAD_MS;

    const chatWorker = async (worker: number): Promise<void> => {
      for (let i = 0; Date.now() < until; i++) {
        const stream = (worker + i) % 2 === 0;
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers,
          body: JSON.stringify({ model: "gpt-4o-mini", stream, user: `user-${worker}`, messages: [{ role: "user", content: "ping" }] }),
        });
        const text = await response.text();
        count(tally, response.status);
        if (response.status !== 200) tally.failures.push(`chat ${response.status}: ${text.slice(0, 200)}`);
      }
    };
    const adminBodies = {
      prompts: (n: number) => ({ name: `p${n}`, model: "gpt-4o-mini", provider: "openai", messages: [{ role: "user", content: "Hi {{name}}" }] }),
      configs: (n: number) => ({ name: `c${n}`, config: { provider: "openai", override_params: { temperature: 0.1 } } }),
      guardrails: (n: number) => ({ name: `g${n}`, checks: [{ type: "word_count", params: { max: 100 } }] }),
    };
    const adminWorker = async (worker: number): Promise<void> => {
      const kinds = Object.keys(adminBodies) as Array<keyof typeof adminBodies>;
      for (let i = 0; Date.now() < until; i++) {
        const kind = kinds[(worker + i) % kinds.length]!;
        const response = await fetch(`${gateway.url}/v1/${kind}`, { method: "POST", headers, body: JSON.stringify(adminBodies[kind](i)) });
        const text = await response.text();
        if (response.status === 201) tally.created[kind] += 1;
        else tally.failures.push(`${kind} ${response.status}: ${text.slice(0, 200)}`);
        // A read between writes, as the dashboard would.
        const listed = await fetch(`${gateway.url}/v1/${kind}`, { headers });
        await listed.text();
        if (listed.status !== 200) tally.failures.push(`list ${kind} ${listed.status}`);
      }
    };
    await Promise.all([
      ...Array.from({ length: CHAT_WORKERS }, (_, worker) => chatWorker(worker)),
      ...Array.from({ length: ADMIN_WORKERS }, (_, worker) => adminWorker(worker)),
    ]);
    const exitCode = await gateway.stop();

    expect(tally.failures.slice(0, 5)).toEqual([]);
    expect(exitCode).toBe(0);
    expect(gateway.stderr()).toBe("");
    const answered = tally.answered.get(200) ?? 0;
    expect(answered).toBeGreaterThan(50);
    expect(tally.created.prompts + tally.created.configs + tally.created.guardrails).toBeGreaterThan(15);

    const db = createClient({ url: databaseUrl });
    try {
      const integrity = await db.execute("PRAGMA integrity_check");
      expect(integrity.rows.map((row) => row[0])).toEqual(["ok"]);
      const rows = async (sql: string): Promise<number> => Number((await db.execute(sql)).rows[0]?.[0]);
      expect(await rows("select count(*) from logs where status = 200")).toBe(answered);
      expect(await rows("select count(*) from logs")).toBe(answered);
      expect(await rows("select count(*) from prompts")).toBe(tally.created.prompts);
      expect(await rows("select count(*) from prompt_versions")).toBe(tally.created.prompts);
      expect(await rows("select count(*) from configs")).toBe(tally.created.configs);
      expect(await rows("select count(*) from config_versions")).toBe(tally.created.configs);
      expect(await rows("select count(*) from guardrails")).toBe(tally.created.guardrails);
    } finally {
      db.close();
    }
  }, 90_000);
});
