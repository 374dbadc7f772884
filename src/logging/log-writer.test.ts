import { describe, expect, it } from "vitest";
import type { LogEntry } from "./log-entry.ts";
import { LogWriter, type LogSink } from "./log-writer.ts";
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
