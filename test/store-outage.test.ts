import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import pg from "pg";
import { BUILD_GRACE_MS, buildClosedRollupHours } from "../src/store/log-rollup-build.ts";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { startOwnPostgres, type OwnPostgres } from "./support/own-postgres.ts";

/**
 * PostgreSQL stopped under load and started again (a server of the test's own): requests keep
 * being served from the caches, none gets a 401 or a 5xx because the store is down, and every
 * log record is spooled and replayed once the store is back: none lost, none doubled.
 */

const UPSTREAM_KEY = "sk-outage-upstream-0123456789";

let own: OwnPostgres;
let upstream: LLMock;
let gateway: RunningGateway;
let serviceKey: string;
let configSlug: string;
let virtualKeySlug: string;
let promptId: string;

beforeAll(async () => {
  own = await startOwnPostgres();
  upstream = await startUpstream();
  upstream.onMessage("ping", { content: "pong", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
  upstream.onMessage("Say hi", { content: "hi there", usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } });
  gateway = await startGateway({
    GATEWAY_DATABASE_URL: own.url,
    // Short lives, so the outage outlasts every cache entry: what is served then is served stale.
    GATEWAY_KEY_CACHE_TTL_MS: 200,
    GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: 200,
    GATEWAY_LOG_BATCH_SIZE: 10,
  });
  const create = async (path: string, body: unknown) => {
    const created = await call(gateway, "POST", path, { body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  };
  serviceKey = (await create("/v1/api-keys", { name: "outage caller", role: "service" })).key;
  const virtualKey = await create("/v1/virtual-keys", { name: "outage upstream", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` });
  virtualKeySlug = virtualKey.slug;
  const guardrail = await create("/v1/guardrails", {
    name: "no forbidden words",
    checks: [{ type: "contains", params: { words: ["forbidden"], operator: "none" } }],
    action: { deny: true },
  });
  configSlug = (await create("/v1/configs", { name: "outage config", config: { virtual_key: virtualKeySlug, input_guardrails: [guardrail.slug] } })).slug;
  promptId = (await create("/v1/prompts", { name: "greeter", model: "gpt-4o-mini", virtual_key: virtualKeySlug, messages: [{ role: "user", content: "Say hi to {{name}}" }] })).id;
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await own?.remove();
});

interface Outcome {
  status: number;
  logId: string | null;
  body: string;
}

/** One request of the mix: by config (plain and streamed), by virtual key, and a prompt run, all with a stored gateway key. */
async function request(index: number): Promise<Outcome> {
  const headers: Record<string, string> = { "content-type": "application/json", "x-gateway-api-key": serviceKey };
  let path = "/v1/chat/completions";
  let body: unknown = { model: "gpt-4o-mini", messages: [{ role: "user", content: "ping" }] };
  const kind = index % 4;
  if (kind === 0) headers["x-gateway-config"] = configSlug;
  if (kind === 1) {
    headers["x-gateway-config"] = configSlug;
    body = { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "ping" }] };
  }
  if (kind === 2) body = { model: `@${virtualKeySlug}/gpt-4o-mini`, messages: [{ role: "user", content: "ping" }] };
  if (kind === 3) {
    path = `/v1/prompts/${promptId}/completions`;
    body = { variables: { name: "Ada" } };
  }
  const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, logId: response.headers.get("x-gateway-log-id"), body: await response.text() };
}

/** `count` requests, `concurrency` at a time. */
async function load(count: number, concurrency = 5): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) outcomes.push(await request(next++));
    }),
  );
  return outcomes;
}

describe("a PostgreSQL store that goes down under load and comes back", () => {
  it("serves every request, answers store reads 503 meanwhile, and stores every record exactly once afterwards", async () => {
    const before = await load(24);
    await gateway.flushLogs();

    await own.stop();
    await new Promise((resolve) => setTimeout(resolve, 300)); // every cache entry has expired
    const during = await load(60);
    const writer = gateway.gateway.deps.logWriter;
    await writer.flush();
    expect(writer.storeDown).toBe(true);
    expect(writer.spooledCount).toBeGreaterThan(0);
    // What needs the store itself says so with a 503, and a key never seen cannot be told from a wrong one: 503, not 401.
    const logs = await call(gateway, "GET", "/v1/logs", { key: serviceKey });
    expect(logs.status).toBe(503);
    expect(logs.body.error).toMatchObject({ code: "service_unavailable", type: "server_error" });
    expect(logs.headers.get("retry-after")).toBe("5");
    const unknownKey = await call(gateway, "GET", "/v1/models", { key: "gw_never-issued-0123456789abcdef0123456789" });
    expect(unknownKey.status).toBe(503);

    await own.start();
    const after = await load(24);
    await expect.poll(() => writer.storeDown || writer.pendingCount > 0, { timeout: 20_000, interval: 100 }).toBe(false);
    await writer.flush();

    const all = [...before, ...during, ...after];
    const failed = all.filter((outcome) => outcome.status !== 200);
    expect(failed.map((outcome) => `${outcome.status} ${outcome.body.slice(0, 200)}`)).toEqual([]);
    expect(during.filter((outcome) => outcome.body.includes("[DONE]"))).toHaveLength(15);
    const logIds = all.map((outcome) => outcome.logId);
    expect(new Set(logIds).size).toBe(all.length);

    const client = new pg.Client(own.url);
    await client.connect();
    try {
      const stored = await client.query<{ id: string }>("select id from logs where id = any($1)", [logIds]);
      expect(stored.rows.map((row) => row.id).sort()).toEqual([...logIds].sort());
      // Nothing doubled, in the logs or in the rollups: the writer leaves the open hours to the
      // background build, run here as if two hours had passed.
      await buildClosedRollupHours(gateway.gateway.deps.store.db, Date.now() + 2 * 3_600_000 + BUILD_GRACE_MS);
      const { rows } = await client.query<{ logs: string; rolled: string }>(
        "select (select count(*) from logs) as logs, (select sum(requests) from log_rollups where dim = 'all') as rolled",
      );
      expect(Number(rows[0]?.logs)).toBe(all.length);
      expect(Number(rows[0]?.rolled)).toBe(all.length);
    } finally {
      await client.end();
    }
    expect(writer.lostCount).toBe(0);
    expect(writer.droppedCount).toBe(0);
  }, 90_000);
});
