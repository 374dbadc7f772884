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

async function text(stream: Promise<ReadableStream<Uint8Array>>): Promise<string> {
  return new Response(await stream).text();
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

  it("reads the first page before answering, each next one only when the reader takes one, and none after a cancel", async () => {
    const store = pagedStore();
    const reader = (await logExportStream(store.read, writer, { limit: 1_000, pageRows: 5 })).getReader();
    expect(store.reads).toHaveLength(1);
    await reader.read(); // the header
    await reader.read(); // the first page, read before
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.reads).toHaveLength(1);
    await reader.read(); // the second page
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.reads).toHaveLength(2);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.reads).toHaveLength(2);
  });

  it("reads nothing more once the request's signal is aborted", async () => {
    const store = pagedStore();
    const abort = new AbortController();
    const reader = (await logExportStream(store.read, writer, { limit: 1_000, pageRows: 5, signal: abort.signal })).getReader();
    await reader.read();
    abort.abort();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(store.reads).toHaveLength(1);
  });

  it("fails itself, before any stream is made, when the first read fails", async () => {
    const failing: ReadLogPage = async () => {
      throw new Error("database gone");
    };
    await expect(logExportStream(failing, writer, { limit: 10 })).rejects.toThrow("database gone");
  });

  it("hands a later read's failure to onFailure and cuts the download short, with a reason the server notes in one line", async () => {
    const store = pagedStore();
    const gone = new Error("database gone");
    const failing: ReadLogPage = async (before, limit) => {
      if (before !== undefined) throw gone;
      return store.read(before, limit);
    };
    const failures: unknown[] = [];
    const out = text(logExportStream(failing, writer, { limit: 1_000, pageRows: 10, onFailure: (error) => failures.push(error) }));
    // Not the store's error: @hono/node-server would print that one's stack, Bun any value but undefined.
    await expect(out).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
    expect(failures).toEqual([gone]);
  });
});
