import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openLogSpool, type LogSpool } from "./log-spool.ts";
import { unpackLogEntry, type LogEntry } from "./log-entry.ts";
import { LogWriter } from "./log-writer.ts";
import type { LogSink, StoreEvent } from "./log-sink.ts";
import type { RecordFigures } from "./record-figures.ts";

const entry = (id: string): LogEntry => ({ id }) as LogEntry;
const figures = (tokens: number): RecordFigures => ({ inputTokens: tokens, outputTokens: 1, costUsd: null, responseModel: null });

describe("LogWriter telemetry", () => {
  it("hands each stored batch with the sink's figures to the observer, and counts a retried write", async () => {
    let calls = 0;
    const sink: LogSink = {
      async insertBatch(entries) {
        calls += 1;
        if (calls === 1) throw new Error("busy");
        return entries.map((_, index) => figures(index + 10));
      },
    };
    const seen: Array<[string[], RecordFigures[] | null]> = [];
    const writer = new LogWriter(sink, { flushIntervalMs: 1000, batchSize: 10, observer: (entries, built) => seen.push([entries.map((e) => e.id), built ? [...built] : null]) });
    writer.enqueue(entry("a"));
    writer.enqueue(entry("b"));
    await writer.close();
    expect(seen).toEqual([[["a", "b"], [figures(10), figures(11)]]]);
    expect(writer.retriedCount).toBe(2);
    expect(writer.lostCount).toBe(0);
  });

  it("counts records lost after the retry and still tells the observer, without figures", async () => {
    const lost: number[] = [];
    const seen: Array<RecordFigures[] | null> = [];
    const writer = new LogWriter({ insertBatch: () => Promise.reject(new Error("down")) }, {
      flushIntervalMs: 1000,
      batchSize: 10,
      onError: (_, count) => lost.push(count),
      observer: (_, built) => seen.push(built ? [...built] : null),
    });
    writer.enqueue(entry("a"));
    await writer.close();
    expect(writer.lostCount).toBe(1);
    expect(lost).toEqual([1]);
    expect(seen).toEqual([null]);
  });

  it("counts records dropped when the queue overflows", () => {
    const writer = new LogWriter({ insertBatch: async () => undefined }, { flushIntervalMs: 1000, batchSize: 10, maxPending: 2 });
    for (const id of ["a", "b", "c"]) writer.enqueue(entry(id));
    expect(writer.droppedCount).toBe(1);
    expect(writer.pendingCount).toBe(2);
  });
});

/** A sink that records each write's size and holds the first write until `release` is called. */
function firstWriteHeld() {
  const sizes: number[] = [];
  let held: () => void = () => undefined;
  const sink: LogSink = {
    async insertBatch(entries) {
      sizes.push(entries.length);
      if (sizes.length === 1) await new Promise<void>((resolve) => (held = resolve));
    },
  };
  return { sink, sizes, release: () => held() };
}

describe("LogWriter batching", () => {
  it("writes one batch at a time, and the next takes every record that arrived meanwhile, up to maxBatchSize", async () => {
    const { sink, sizes, release } = firstWriteHeld();
    const writer = new LogWriter(sink, { flushIntervalMs: 1000, batchSize: 10, maxBatchSize: 500 });
    for (let i = 0; i < 10; i += 1) writer.enqueue(entry(`first-${i}`));
    await vi.waitFor(() => expect(sizes).toEqual([10]));
    // The first write is under way: 1,200 records arrive and wait for it.
    for (let i = 0; i < 1200; i += 1) writer.enqueue(entry(`later-${i}`));
    expect(writer.pendingCount).toBe(1200);
    release();
    await vi.waitFor(() => expect(writer.pendingCount).toBe(0));
    expect(sizes).toEqual([10, 500, 500, 200]);
    await writer.close();
  });

  it("after a write, waits for a full batch or the interval before writing the few that arrived meanwhile", async () => {
    vi.useFakeTimers();
    try {
      const { sink, sizes, release } = firstWriteHeld();
      const writer = new LogWriter(sink, { flushIntervalMs: 250, batchSize: 10, maxBatchSize: 20 });
      for (let i = 0; i < 10; i += 1) writer.enqueue(entry(`first-${i}`));
      await vi.advanceTimersByTimeAsync(0);
      expect(sizes).toEqual([10]);
      for (let i = 0; i < 4; i += 1) writer.enqueue(entry(`later-${i}`));
      release();
      await vi.advanceTimersByTimeAsync(100);
      expect(sizes).toEqual([10]);
      expect(writer.pendingCount).toBe(4);
      // A full batch starts a write at once; what is left waits for the interval.
      for (let i = 0; i < 7; i += 1) writer.enqueue(entry(`full-${i}`));
      await vi.advanceTimersByTimeAsync(0);
      expect(sizes).toEqual([10, 11]);
      writer.enqueue(entry("last"));
      await vi.advanceTimersByTimeAsync(249);
      expect(sizes).toEqual([10, 11]);
      await vi.advanceTimersByTimeAsync(1);
      expect(sizes).toEqual([10, 11, 1]);
      await writer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("never takes fewer than batchSize at a time, whatever maxBatchSize says", async () => {
    const sizes: number[] = [];
    const writer = new LogWriter({ insertBatch: async (entries) => void sizes.push(entries.length) }, { flushIntervalMs: 1000, batchSize: 50, maxBatchSize: 5 });
    for (let i = 0; i < 120; i += 1) writer.enqueue(entry(String(i)));
    await writer.close();
    expect(sizes).toEqual([50, 50, 20]);
  });
});

/** An entry as the request path makes one, as far as the spool's packing reads it. */
const spoolable = (id: string): LogEntry => ({ id, metadata: {}, response: null }) as unknown as LogEntry;

/** A store that can be switched off, refuses chosen ids, and keeps what it stored, in order. */
function switchableSink(refuse: Set<string> = new Set()) {
  const stored: string[] = [];
  const state = { up: true };
  const sink: LogSink = {
    async insertBatch(entries) {
      if (!state.up) throw new Error("connection refused");
      if (entries.some((e) => refuse.has(e.id))) throw new Error("value too long");
      for (const e of entries) if (!stored.includes(e.id)) stored.push(e.id);
    },
    async ping() {
      if (!state.up) throw new Error("connection refused");
    },
  };
  return { sink, stored, state };
}

/** A store whose writes wait until `release` is called, then store as `switchableSink` does. */
function heldSink() {
  const { sink, stored } = switchableSink();
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const slow: LogSink = { insertBatch: async (entries) => (await held, sink.insertBatch(entries)) };
  return { sink: slow, stored, release };
}

/** The real spool, its appends held while the test says so; `appending` records every append asked for. */
function gated(real: LogSpool) {
  let gate: Promise<void> = Promise.resolve();
  const appending: LogEntry[][] = [];
  const spool: LogSpool = {
    get path() {
      return real.path;
    },
    get isEmpty() {
      return real.isEmpty;
    },
    get pendingBytes() {
      return real.pendingBytes;
    },
    append: async (entries) => {
      appending.push([...entries]);
      await gate;
      return real.append(entries);
    },
    head: () => real.head(),
    dropHead: () => real.dropHead(),
    reject: (entries) => real.reject(entries),
    close: () => real.close(),
  };
  /** Holds appends from now on; the function returned lets them through. */
  const hold = (): (() => void) => {
    let open: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    return open;
  };
  return { spool, appending, hold };
}

describe("LogWriter with a spool", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "log-writer-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("spools batches while the store is down and replays them in order, exactly once, when it is back", async () => {
    const { sink, stored, state } = switchableSink();
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const events: string[] = [];
    const writer = new LogWriter(sink, { flushIntervalMs: 5, batchSize: 3, spool, maxRetryDelayMs: 50, onStoreEvent: (e) => events.push(e.kind) });
    writer.enqueue(spoolable("1"));
    await writer.flush();
    state.up = false;
    for (const id of ["2", "3", "4", "5", "6", "7", "8"]) writer.enqueue(spoolable(id));
    await writer.flush();
    expect(writer.storeDown).toBe(true);
    expect(spool.isEmpty).toBe(false);
    expect(writer.pendingCount).toBe(0);
    state.up = true;
    writer.enqueue(spoolable("9"));
    await vi.waitFor(() => expect(stored).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]), { timeout: 2000 });
    await vi.waitFor(() => expect(writer.storeDown).toBe(false));
    expect(spool.isEmpty).toBe(true);
    expect(events).toEqual(["down", "back"]);
    await writer.close();
    await spool.close();
  });

  it("leaves spooled batches to the next process when it shuts down during an outage", async () => {
    const first = switchableSink();
    first.state.up = false;
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const writer = new LogWriter(first.sink, { flushIntervalMs: 5, batchSize: 2, spool });
    for (const id of ["a", "b", "c"]) writer.enqueue(spoolable(id));
    await writer.close();
    expect(writer.lostCount).toBe(0);
    expect(writer.spooledCount).toBe(3);
    await spool.close();

    const second = switchableSink();
    const reopened = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const next = new LogWriter(second.sink, { flushIntervalMs: 5, batchSize: 2, spool: reopened });
    next.enqueue(spoolable("d"));
    await vi.waitFor(() => expect(second.stored).toEqual(["a", "b", "c", "d"]), { timeout: 2000 });
    await next.close();
    await reopened.close();
  });

  it("sets aside a record the store refuses while it stores the others", async () => {
    const { sink, stored } = switchableSink(new Set(["bad"]));
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const writer = new LogWriter(sink, { flushIntervalMs: 5, batchSize: 10, spool });
    for (const id of ["x", "bad", "y"]) writer.enqueue(spoolable(id));
    await writer.close();
    expect(stored).toEqual(["x", "y"]);
    expect(writer.rejectedCount).toBe(1);
    const rejected = await readFile(join(dir, "rejected.jsonl"), "utf8");
    expect(rejected.trim().split("\n")).toHaveLength(1);
    expect(unpackLogEntry(JSON.parse(rejected) as unknown[]).id).toBe("bad");
    await spool.close();
  });

  it("spools the oldest of a full queue while the store is slower than records arrive, and stores every record once, in order", async () => {
    const { sink: slow, stored, release } = heldSink();
    const real = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const { spool, appending, hold } = gated(real);
    const events: StoreEvent[] = [];
    const writer = new LogWriter(slow, { flushIntervalMs: 1000, batchSize: 5, maxPending: 10, spool, onStoreEvent: (e) => events.push(e) });
    const ids = Array.from({ length: 21 }, (_, i) => String(i + 1));
    ids.slice(0, 5).forEach((id) => writer.enqueue(spoolable(id)));
    await vi.waitFor(() => expect(writer.pendingCount).toBe(0)); // the first write holds 1–5
    ids.slice(5, 16).forEach((id) => writer.enqueue(spoolable(id))); // the 16th finds the queue full: 6–10 to the spool
    await vi.waitFor(() => expect(writer.spooledCount).toBe(5));
    const open = hold();
    ids.slice(16).forEach((id) => writer.enqueue(spoolable(id))); // the 21st: 11–15 on their way to the spool
    await vi.waitFor(() => expect(appending).toHaveLength(2));
    expect(writer.pendingCount).toBe(6);
    release();
    // 16–21 wait for 11–15 to be spooled: they are newer.
    await vi.waitFor(() => expect(stored).toEqual(ids.slice(0, 5)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stored).toEqual(ids.slice(0, 5));
    open();
    await vi.waitFor(() => expect(stored).toEqual(ids), { timeout: 2000 });
    expect(writer.droppedCount).toBe(0);
    expect(writer.spooledCount).toBe(10);
    expect(events).toEqual([{ kind: "behind", waiting: 10, spool: real.path }]);
    expect(real.isEmpty).toBe(true);
    expect(writer.storeDown).toBe(false);
    await writer.close();
    await real.close();
  });

  it("drops and counts a full queue's oldest records when the spool cannot take them", async () => {
    const { sink: slow, stored, release } = heldSink();
    const spool = await openLogSpool(dir, { maxBytes: 10 });
    const events: string[] = [];
    const writer = new LogWriter(slow, { flushIntervalMs: 1000, batchSize: 5, maxPending: 10, spool, onStoreEvent: (e) => events.push(e.kind) });
    const ids = Array.from({ length: 16 }, (_, i) => String(i + 1));
    ids.slice(0, 5).forEach((id) => writer.enqueue(spoolable(id)));
    await vi.waitFor(() => expect(writer.pendingCount).toBe(0));
    ids.slice(5).forEach((id) => writer.enqueue(spoolable(id)));
    await vi.waitFor(() => expect(writer.droppedCount).toBe(5));
    expect(events).toEqual(["spool_failed"]);
    release();
    await writer.close();
    expect(stored).toEqual([...ids.slice(0, 5), ...ids.slice(10)]);
    expect(writer.spooledCount).toBe(0);
    await spool.close();
  });

  it("counts every record of a queue that overflows while the store is down and a batch is being spooled", async () => {
    const { sink, stored, state } = switchableSink();
    state.up = false;
    const real = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const { spool, appending, hold } = gated(real);
    const writer = new LogWriter(sink, { flushIntervalMs: 1000, batchSize: 4, maxPending: 4, spool, maxRetryDelayMs: 20 });
    ["1", "2"].forEach((id) => writer.enqueue(spoolable(id)));
    await writer.flush(); // the store is down: 1 and 2 spooled
    expect(writer.spooledCount).toBe(2);
    const open = hold();
    ["3", "4", "5", "6"].forEach((id) => writer.enqueue(spoolable(id)));
    await vi.waitFor(() => expect(appending).toHaveLength(2)); // 3–6 on their way to the spool
    ["7", "8", "9", "10", "11"].forEach((id) => writer.enqueue(spoolable(id))); // the 11th finds the queue full
    open();
    state.up = true;
    await vi.waitFor(() => expect(stored.length + writer.droppedCount).toBe(11), { timeout: 2000 });
    expect(new Set(stored).size).toBe(stored.length);
    expect(writer.droppedCount).toBe(1);
    expect(stored).toEqual(["1", "2", "3", "4", "5", "6", "8", "9", "10", "11"]);
    await writer.close();
    await real.close();
  });

  it("keeps records in memory when the spool is full, and stores them once the store is back", async () => {
    const { sink, stored, state } = switchableSink();
    state.up = false;
    const spool = await openLogSpool(dir, { maxBytes: 10 });
    const events: string[] = [];
    const writer = new LogWriter(sink, { flushIntervalMs: 5, batchSize: 2, spool, maxRetryDelayMs: 20, onStoreEvent: (e) => events.push(e.kind) });
    writer.enqueue(spoolable("p"));
    await writer.flush();
    expect(writer.pendingCount).toBe(1);
    expect(events).toEqual(["down", "spool_failed"]);
    state.up = true;
    await vi.waitFor(() => expect(stored).toEqual(["p"]), { timeout: 2000 });
    await writer.close();
    await spool.close();
  });
});
