import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { openStore } from "../src/store/open-store.ts";
import { logRecord } from "../src/store/store-test-fixtures.ts";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { csvObjects } from "./support/csv.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startUpstream } from "./support/harness.ts";

/** The export and the config fields under the runtime users run (`npm start`, Bun, log worker thread). */

const SEEDED = 2_000;
const databaseUrl = sqliteTestUrl();
let upstream: LLMock;
let gateway: BunGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back" });
  const store = await openStore(databaseUrl);
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  await store.logs.insertBatch(Array.from({ length: SEEDED }, (_, i) => logRecord(start + i, { workspaceId: DEFAULT_WORKSPACE_ID, traceId: `seed-${i}` })));
  await store.close();
  gateway = await startBunGateway(databaseUrl);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

describe("logs under npm start (Bun)", () => {
  const headers = () => ({ "x-gateway-api-key": gateway.adminKey, "content-type": "application/json" });

  it("logs the stored config that served a request, through the log worker", async () => {
    const created = await fetch(`${gateway.url}/v1/configs`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ name: "bun config", config: { provider: "openai", custom_host: `${upstream.url}/v1` } }),
    }).then((response) => response.json() as Promise<{ id: string; slug: string }>);
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...headers(), "x-gateway-config": created.slug, authorization: "Bearer sk-upstream" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(chat.status).toBe(200);
    let served: Array<{ config_id: string; config_version: number }> = [];
    for (let attempt = 0; attempt < 100 && served.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const page = await fetch(`${gateway.url}/v1/logs?config=${created.slug}`, { headers: headers() }).then((response) => response.json() as Promise<{ data: typeof served }>);
      served = page.data;
    }
    expect(served).toEqual([expect.objectContaining({ config_id: created.id, config_version: 1 })]);
  });

  it("exports every record as JSONL and CSV, and keeps serving after a client leaves mid-export", async () => {
    const jsonl = await fetch(`${gateway.url}/v1/logs/export`, { headers: headers() });
    expect(jsonl.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await jsonl.text()).trimEnd().split("\n").map((line) => JSON.parse(line) as { id: string });
    expect(lines).toHaveLength(SEEDED + 1);
    expect(new Set(lines.map((line) => line.id)).size).toBe(SEEDED + 1);

    const csv = await fetch(`${gateway.url}/v1/logs/export?format=csv`, { headers: headers() });
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="logs-.*\.csv"$/);
    expect(csvObjects(await csv.text()).map((row) => row.id)).toEqual(lines.map((line) => line.id));

    const abort = new AbortController();
    const partial = await fetch(`${gateway.url}/v1/logs/export?include_bodies=true`, { headers: headers(), signal: abort.signal });
    await partial.body!.getReader().read();
    abort.abort();
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/v1/logs?limit=1`, { headers: headers() })).status).toBe(200);
  });
});
