import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { startUpstream } from "./support/harness.ts";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { startOwnPostgres, type OwnPostgres } from "./support/own-postgres.ts";

/**
 * `npm start` (Bun) on PostgreSQL, and the server stopped while requests are in flight: a
 * connection the pool has lent out (a query running) loses its server then. The process must
 * live through it (an unhandled `error` on a lent client would end it), keep serving, and store
 * what it logged once the server is back.
 */

let own: OwnPostgres;
let upstream: LLMock;
let gateway: BunGateway;
let dataDir: string;

beforeAll(async () => {
  own = await startOwnPostgres();
  upstream = await startUpstream();
  upstream.onMessage("stop", { content: "still here" });
  dataDir = mkdtempSync(join(tmpdir(), "gateway-pg-stop-"));
  gateway = await startBunGateway(own.url, { GATEWAY_DATA_DIR: dataDir });
}, 60_000);

afterAll(async () => {
  if (gateway?.child.exitCode === null) await gateway.stop();
  await upstream?.stop();
  await own?.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("PostgreSQL stopped under load, gateway run with Bun", () => {
  it("keeps the process up and serving, and stores the records once the server is back", async () => {
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "sk-upstream-0123456789",
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` },
      maxRetries: 0,
    });
    const statuses: Record<string, number> = {};
    let running = true;
    const worker = async () => {
      while (running) {
        const outcome = await client.chat.completions
          .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "stop" }], user: "pg-stop" })
          .then(() => "200", (error: unknown) => (error instanceof OpenAI.APIError && error.status ? String(error.status) : `failed: ${String(error)}`));
        statuses[outcome] = (statuses[outcome] ?? 0) + 1;
      }
    };
    const workers = Array.from({ length: 50 }, worker);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await own.stop();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(gateway.child.exitCode, gateway.stderr()).toBeNull();
    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    const logs = await fetch(`${gateway.url}/v1/logs?limit=1`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    expect(logs.status).toBe(503);
    expect(((await logs.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    await own.start();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await Promise.all(workers);
    expect(gateway.child.exitCode, gateway.stderr()).toBeNull();
    expect(Object.keys(statuses), JSON.stringify(statuses)).toEqual(["200"]);

    // Every answered request is stored once the server is back (spooled meanwhile, then replayed).
    const answered = statuses["200"] ?? 0;
    let stored = 0;
    for (let attempt = 0; attempt < 100 && stored < answered; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stored = await countStored(own.url);
    }
    expect(stored).toBe(answered);
  }, 90_000);
});

async function countStored(url: string): Promise<number> {
  const pg = await import("pg");
  const db = new pg.default.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ count: string }>("select count(*) as count from logs where end_user = 'pg-stop'");
    return Number(rows[0]?.count ?? 0);
  } finally {
    await db.end();
  }
}
