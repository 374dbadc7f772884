import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { openStore } from "../src/store/open-store.ts";
import type { LogsRepository } from "../src/store/logs-repository.ts";
import { markStoreUnavailable } from "../src/store/store-unavailable.ts";
import { logRecord } from "../src/store/store-test-fixtures.ts";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startOwnPostgres, type OwnPostgres } from "./support/own-postgres.ts";

/**
 * A log export while the store is away (a PostgreSQL server in crash recovery answers 57P03, or
 * cuts its connections). An export that cannot read its first page is answered 503 like any
 * request that needs the store; one whose store fails midway is cut short. Either way the
 * gateway says so in its own `[gateway]` line: the server never prints the store's error raw
 * (Bun printed it as a code frame, @hono/node-server as a stack).
 */

const RECORDS = 600;
/** Bodies large enough that the export cannot all sit in socket buffers while the client pauses. */
const BODY = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(20_000) }] });

function records(count: number) {
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  return Array.from({ length: count }, (_, i) => logRecord(start + i, { workspaceId: DEFAULT_WORKSPACE_ID, requestBody: BODY, responseBody: BODY, traceId: `down-${i}` }));
}

/** Reads the download to its end: its byte count, or the error that cut it short. */
async function readToEnd(response: Response): Promise<number | Error> {
  const reader = response.body!.getReader();
  let bytes = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.byteLength;
    return bytes;
  } catch (error) {
    return error as Error;
  }
}

/** Lines that are not the gateway's own (`[gateway] …`, `[store] …`): a raw error print. */
function rawLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.trim() !== "" && !/^\[(gateway|store)\] /.test(line));
}

describe("Node: an export whose store fails", () => {
  let gateway: RunningGateway;
  let logs: LogsRepository;
  let list: LogsRepository["list"];
  let stderr: MockInstance<(...args: unknown[]) => void>;
  /** The page reads (0 = the first) that fail as PostgreSQL in crash recovery does. */
  let failingReads: (read: number) => boolean = () => false;

  beforeAll(async () => {
    gateway = await startGateway();
    logs = gateway.gateway.deps.store.logs;
    await logs.insertBatch(records(100));
    list = logs.list.bind(logs);
  }, 60_000);
  afterEach(() => {
    stderr?.mockRestore();
    logs.list = list;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const failFrom = (first: number): void => {
    let reads = 0;
    logs.list = (filters, options) => {
      if (reads++ < first) return list(filters, options);
      const error = Object.assign(new Error("the database system is not yet accepting connections"), { code: "57P03" });
      return Promise.reject(markStoreUnavailable(error));
    };
  };
  const printed = (): unknown[] => stderr.mock.calls.map((args) => args[0]);

  it("answers 503 with Retry-After when the first page cannot be read, and says so in its own line", async () => {
    stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    failFrom(0);
    const answer = await call(gateway, "GET", "/v1/logs/export");
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("5");
    expect(answer.body).toMatchObject({ error: { code: "service_unavailable" } });
    expect(printed()).toEqual([expect.stringMatching(/^\[gateway\] the store is unavailable \(the database system is not yet accepting connections\)/)]);
  });

  it("cuts the download short when a later page cannot be read, printing no raw error", async () => {
    // An episode ends a second after the last failure once the store answers: start a new one.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await call(gateway, "GET", "/v1/logs?limit=1")).status).toBe(200);
    stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    failFrom(1);
    const response = await fetch(`${gateway.url}/v1/logs/export?include_bodies=true`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    expect(response.status).toBe(200);
    expect(await readToEnd(response)).toBeInstanceOf(Error);
    expect(printed()).toEqual([expect.stringMatching(/^\[gateway\] the store is unavailable/)]);
    expect((await call(gateway, "GET", "/health")).status).toBe(200);
  });
});

describe("Bun (npm start): an export while PostgreSQL goes away", () => {
  let own: OwnPostgres;
  let gateway: BunGateway;
  let dataDir: string;

  beforeAll(async () => {
    own = await startOwnPostgres();
    const store = await openStore(own.url);
    await store.logs.insertBatch(records(RECORDS));
    await store.close();
    dataDir = mkdtempSync(join(tmpdir(), "gateway-export-down-"));
    gateway = await startBunGateway(own.url, { GATEWAY_DATA_DIR: dataDir });
  }, 60_000);
  afterAll(async () => {
    if (gateway?.child.exitCode === null) await gateway.stop();
    await own?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("cuts a running export short and answers a new one 503, printing only the gateway's own lines", async () => {
    const headers = { "x-gateway-api-key": gateway.adminKey };
    const running = await fetch(`${gateway.url}/v1/logs/export?include_bodies=true`, { headers });
    expect(running.status).toBe(200);
    const reader = running.body!.getReader();
    await reader.read();
    // The client pauses: the gateway reads no page ahead of it, so the next read meets a stopped server.
    await own.stop();
    let cut: unknown = null;
    try {
      while (!(await reader.read()).done);
    } catch (error) {
      cut = error;
    }
    expect(cut).not.toBeNull();

    const refused = await fetch(`${gateway.url}/v1/logs/export`, { headers });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");

    await own.start();
    let back = 0;
    for (let attempt = 0; attempt < 100 && back !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = (await fetch(`${gateway.url}/v1/logs/export?limit=10`, { headers })).status;
    }
    expect(back).toBe(200);
    expect(gateway.child.exitCode, gateway.stderr()).toBeNull();
    expect(gateway.stderr()).toMatch(/\[gateway\] the store is unavailable/);
    expect(rawLines(gateway.stderr()), gateway.stderr()).toEqual([]);
  }, 60_000);
});
