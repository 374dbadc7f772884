import { describe, expect, it } from "vitest";
import { logRecord } from "../store/store-test-fixtures.ts";
import type { LogRecord } from "../records/log-record.ts";
import { logExportStream, type ReadLogPage } from "./log-export-stream.ts";

const records = Array.from({ length: 25 }, (_, i) => logRecord(Date.parse("2026-01-01T00:00:00.000Z") + (25 - i) * 1000));
const writer = { header: "head\n", line: (record: LogRecord) => `${record.id}\n` };

/** A store of `records` (newest first) that counts its page reads. */
function pagedStore(): { read: ReadLogPage; reads: Array<{ before: string | undefined; limit: number }> } {
  const reads: Array<{ before: string | undefined; limit: number }> = [];
  return {
    reads,
    read: async (before, limit) => {
      reads.push({ before, limit });
      const older = before === undefined ? records : records.filter((record) => record.id < before);
      return { records: older.slice(0, limit), hasMore: older.length > limit };
    },
  };
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe("log export stream", () => {
  it("writes the header, then every record page by page by cursor", async () => {
    const store = pagedStore();
    const out = await text(logExportStream(store.read, writer, { limit: 1_000, pageRows: 10 }));
    expect(out).toBe(`head\n${records.map((record) => `${record.id}\n`).join("")}`);
    expect(store.reads.map((read) => read.before)).toEqual([undefined, records[9]!.id, records[19]!.id]);
  });

  it("stops at the limit, asking no more than it needs", async () => {
    const store = pagedStore();
    const out = await text(logExportStream(store.read, writer, { limit: 12, pageRows: 10 }));
    expect(out.split("\n").filter(Boolean)).toHaveLength(13);
    expect(store.reads.map((read) => read.limit)).toEqual([10, 2]);
  });

  it("reads a page only when the reader takes one, and none after a cancel", async () => {
    const store = pagedStore();
    const reader = logExportStream(store.read, writer, { limit: 1_000, pageRows: 5 }).getReader();
    expect(store.reads).toHaveLength(0);
    await reader.read(); // the header
    await reader.read(); // the first page
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.reads).toHaveLength(1);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.reads).toHaveLength(1);
  });

  it("reads nothing once the request's signal is aborted", async () => {
    const store = pagedStore();
    const abort = new AbortController();
    const reader = logExportStream(store.read, writer, { limit: 1_000, pageRows: 5, signal: abort.signal }).getReader();
    await reader.read();
    abort.abort();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(store.reads).toHaveLength(0);
  });

  it("errors the stream when a read fails", async () => {
    const failing: ReadLogPage = async () => {
      throw new Error("database gone");
    };
    await expect(text(logExportStream(failing, writer, { limit: 10 }))).rejects.toThrow("database gone");
  });
});
