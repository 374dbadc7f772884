import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import pg from "pg";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { startOwnPostgres, type OwnPostgres } from "./support/own-postgres.ts";
import { testPostgresServerUrl } from "./support/services.ts";

/**
 * Every way PostgreSQL can be away is answered 503 with `Retry-After`, never 500 or 401, and
 * the gateway's log says so once per outage episode, not once per request: a database of the
 * test's own made to refuse connections, its backends terminated again and again, a pool with
 * no connection free in time, and a stopped server of the test's own.
 */

const SHARED_SERVER = testPostgresServerUrl();
const UNAVAILABLE_LINE = /the store is unavailable/;

let upstream: LLMock;
let stderr: MockInstance<(...args: unknown[]) => void>;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("ping", { content: "pong", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
});
afterAll(async () => {
  await upstream?.stop();
});
afterEach(() => {
  stderr?.mockRestore();
});

async function admin<T>(work: (client: pg.Client) => Promise<T>, database = "postgres"): Promise<T> {
  const client = new pg.Client({ connectionString: `${SHARED_SERVER}/${database}` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A gateway on `url`, with a service key it has never used (so never cached) and short cache lives. */
async function gatewayOn(url: string): Promise<{ gateway: RunningGateway; unusedKey: string }> {
  const gateway = await startGateway({ GATEWAY_DATABASE_URL: url, GATEWAY_KEY_CACHE_TTL_MS: 100, GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: 100 });
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "never used", role: "service" } });
  expect(created.status).toBe(201);
  // Used once, so the admin key is cached: during the outage it is served stale and the routes themselves meet the store.
  expect((await call(gateway, "GET", "/v1/configs")).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 150));
  return { gateway, unusedKey: created.body.key as string };
}

/** The requests that need the store: an admin write, a log listing, feedback, and a chat with a key never seen. */
async function storeBoundRequests(gateway: RunningGateway, unusedKey: string): Promise<{ status: number; retryAfter: string | null; body: unknown }[]> {
  const requests = [
    call(gateway, "POST", "/v1/configs", { body: { name: `during outage ${randomBytes(3).toString("hex")}`, config: { provider: "openai" } } }),
    call(gateway, "GET", "/v1/logs"),
    call(gateway, "POST", "/v1/feedback", { body: { trace_id: "outage", value: 1 } }),
    call(gateway, "POST", "/v1/chat/completions", {
      key: unusedKey,
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: "Bearer sk-outage-kinds-0123456789" },
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "ping" }] },
    }),
  ];
  return (await Promise.all(requests)).map((answer) => ({ status: answer.status, retryAfter: answer.headers.get("retry-after"), body: answer.body }));
}

function expectAll503(answers: { status: number; retryAfter: string | null; body: unknown }[]): void {
  for (const answer of answers) {
    expect(answer, JSON.stringify(answer.body)).toMatchObject({ status: 503, retryAfter: "5" });
    expect(answer.body).toMatchObject({ error: { code: "service_unavailable" } });
  }
}

function unavailableLines(): number {
  return stderr.mock.calls.filter((args) => UNAVAILABLE_LINE.test(String(args[0]))).length;
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a database of the test's own on the shared server", () => {
  const database = `gw_outage_${randomBytes(5).toString("hex")}`;
  let gateway: RunningGateway;
  let unusedKey: string;

  const terminateBackends = () =>
    admin((client) => client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [database]));

  beforeAll(async () => {
    await admin((client) => client.query(`create database "${database}"`));
    ({ gateway, unusedKey } = await gatewayOn(`${SHARED_SERVER}/${database}`));
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await admin(async (client) => {
      await client.query(`alter database "${database}" allow_connections true`);
      await client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [database]);
      await client.query(`drop database if exists "${database}"`);
    });
  });

  it("refusing connections (ALLOW_CONNECTIONS false, backends terminated): 503 with Retry-After, one line per episode", async () => {
    stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (let episode = 1; episode <= 2; episode++) {
      await admin((client) => client.query(`alter database "${database}" allow_connections false`));
      await terminateBackends();
      for (let round = 0; round < 5; round++) expectAll503(await storeBoundRequests(gateway, unusedKey));
      expect(unavailableLines()).toBe(episode);
      await admin((client) => client.query(`alter database "${database}" allow_connections true`));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await until(async () => (await call(gateway, "GET", "/v1/logs")).status === 200);
    }
    expect(unavailableLines()).toBe(2);
    expect(stderr.mock.calls.some((args) => /unexpected error/.test(String(args[0])))).toBe(false);
  }, 60_000);

  it("backends terminated again and again under load: every answer is a success or a 503, never a 500", async () => {
    stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    let terminating = true;
    const terminator = (async () => {
      while (terminating) {
        await terminateBackends();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const statuses: number[] = [];
    for (let round = 0; round < 15; round++) {
      const answers = await Promise.all([
        call(gateway, "GET", "/v1/logs"),
        call(gateway, "GET", "/v1/configs"),
        call(gateway, "POST", "/v1/feedback", { body: { trace_id: "terminated", value: 1 } }),
      ]);
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status === 503) expect(answer.headers.get("retry-after")).toBe("5");
        else expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      }
    }
    terminating = false;
    await terminator;
    expect(statuses).toHaveLength(45);
    expect(stderr.mock.calls.some((args) => /unexpected error/.test(String(args[0])))).toBe(false);
  }, 60_000);

  it("a pool with no connection free within its 5 s wait: 503, and the waiting requests are answered once the lock goes", async () => {
    stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    // A lock from outside holds every pooled connection of the gateway (ten) in a query that waits.
    const holder = new pg.Client({ connectionString: `${SHARED_SERVER}/${database}` });
    await holder.connect();
    await holder.query("begin");
    await holder.query("lock table configs in access exclusive mode");
    const held = Array.from({ length: 10 }, () => call(gateway, "GET", "/v1/configs"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const starved = await call(gateway, "GET", "/v1/logs");
    await holder.query("rollback");
    await holder.end();
    expect(starved.status, JSON.stringify(starved.body)).toBe(503);
    expect(starved.headers.get("retry-after")).toBe("5");
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual(Array(10).fill(200));
  }, 30_000);
});

describe("a stopped server of the test's own", () => {
  let own: OwnPostgres;
  let gateway: RunningGateway;
  let unusedKey: string;

  beforeAll(async () => {
    own = await startOwnPostgres();
    ({ gateway, unusedKey } = await gatewayOn(own.url));
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await own?.remove();
  });

  it("answers 503 with Retry-After while it is stopped, and says so once per stop", async () => {
    stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (let episode = 1; episode <= 2; episode++) {
      // An episode ends when the store answers a second after its last failure (an earlier
      // test's may still be open): end it first, so that this stop starts one.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await until(async () => (await call(gateway, "GET", "/v1/logs")).status === 200);
      const before = unavailableLines();
      await own.stop();
      for (let round = 0; round < 5; round++) expectAll503(await storeBoundRequests(gateway, unusedKey));
      expect(unavailableLines() - before).toBe(1);
      await own.start();
    }
    expect(stderr.mock.calls.some((args) => /unexpected error/.test(String(args[0])))).toBe(false);
  }, 60_000);
});
