import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS_WITH_BODIES } from "../src/logging/log-export-stream.ts";
import type { LogsRepository } from "../src/store/logs-repository.ts";
import { logRecord } from "../src/store/store-test-fixtures.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

const ROWS = 5_000;
const PAGES = Math.ceil(ROWS / EXPORT_PAGE_ROWS_WITH_BODIES);
const BODY = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(2_000) }] });

describe("a large export", () => {
  let gateway: RunningGateway;
  /** Store pages read by exports so far. */
  let pageReads = 0;

  beforeAll(async () => {
    gateway = await startGateway();
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    const records = Array.from({ length: ROWS }, (_, i) =>
      logRecord(start + i, { workspaceId: DEFAULT_WORKSPACE_ID, requestBody: BODY, responseBody: BODY, traceId: `trace-${i}` }),
    );
    const logs: LogsRepository = gateway.gateway.deps.store.logs;
    await logs.insertBatch(records);
    const list = logs.list.bind(logs);
    logs.list = (filters, options) => {
      pageReads++;
      return list(filters, options);
    };
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
  });

  const open = (signal?: AbortSignal) =>
    fetch(`${gateway.url}/v1/logs/export?include_bodies=true`, { headers: { "x-gateway-api-key": gateway.adminKey }, signal });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("streams: the first bytes come before the store is read to the end, and a paused client stops the reads", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
    pageReads = 0;
    const started = performance.now();
    const response = await open();
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    const firstByteMs = performance.now() - started;
    expect(first.value!.byteLength).toBeGreaterThan(0);
    // The client reads nothing for a while: the gateway must not read the store ahead of it.
    await pause(400);
    const readsWhilePaused = pageReads;
    expect(readsWhilePaused).toBeLessThan(PAGES);

    // Only the ids are kept, so the heap measures the gateway's side of the export.
    const decoder = new TextDecoder();
    const ids: string[] = [];
    let firstContentChars = 0;
    let pending = "";
    let bytes = 0;
    const take = (chunk: Uint8Array) => {
      bytes += chunk.byteLength;
      const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        const log = JSON.parse(line) as { id: string; request: { body: { messages: Array<{ content: string }> } } };
        if (ids.length === 0) firstContentChars = log.request.body.messages[0]!.content.length;
        ids.push(log.id);
      }
    };
    take(first.value!);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) take(chunk.value);
    const totalMs = performance.now() - started;
    clearInterval(sampler);
    expect(pending).toBe("");
    expect(ids).toHaveLength(ROWS);
    expect(new Set(ids).size).toBe(ROWS);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(firstContentChars).toBe(2_000);
    expect(pageReads).toBe(PAGES);
    console.info(
      `export of ${ROWS} records, ${(bytes / 1e6).toFixed(1)} MB: first bytes after ${firstByteMs.toFixed(0)} ms, all after ${totalMs.toFixed(0)} ms; ` +
        `${readsWhilePaused}/${PAGES} pages read while the client paused; heap peak +${((heapPeak - heapBefore) / 1e6).toFixed(1)} MB`,
    );
  }, 60_000);

  it("stops reading the store when the client disconnects", async () => {
    pageReads = 0;
    const abort = new AbortController();
    const response = await open(abort.signal);
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    await pause(300);
    const afterDisconnect = pageReads;
    await pause(300);
    expect(pageReads).toBe(afterDisconnect);
    expect(afterDisconnect).toBeLessThan(PAGES);
    // The gateway keeps serving.
    expect((await call(gateway, "GET", "/v1/logs?limit=1")).status).toBe(200);
  }, 30_000);

  it("writes all the records as CSV, reading the summaries in pages of their own size", async () => {
    pageReads = 0;
    const started = performance.now();
    const response = await fetch(`${gateway.url}/v1/logs/export?format=csv`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    const text = await response.text();
    const totalMs = performance.now() - started;
    // Header, then one CRLF-ended line per record (no cell here holds a line break).
    expect(text.split("\r\n").length - 2).toBe(ROWS);
    expect(pageReads).toBe(Math.ceil(ROWS / EXPORT_PAGE_ROWS));
    console.info(`CSV export of ${ROWS} summaries, ${(text.length / 1e6).toFixed(1)} MB, in ${totalMs.toFixed(0)} ms`);
  }, 30_000);
});
