import { describe, expect, it, vi } from "vitest";
import { isStoreUnavailable, markStoreUnavailable, storeOutage } from "./store-unavailable.ts";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("isStoreUnavailable", () => {
  it("recognises a store that is down, refusing connections, out of them, locked or full", () => {
    expect(isStoreUnavailable(withCode("connect ECONNREFUSED 127.0.0.1:5", "ECONNREFUSED"))).toBe(true);
    expect(isStoreUnavailable(withCode('database "x" is not currently accepting connections', "55000"))).toBe(true);
    expect(isStoreUnavailable(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isStoreUnavailable(withCode("terminating connection due to crash of another server process", "57P02"))).toBe(true);
    expect(isStoreUnavailable(withCode("the database system is starting up", "57P03"))).toBe(true);
    expect(isStoreUnavailable(withCode("canceling statement due to statement timeout", "57014"))).toBe(true);
    expect(isStoreUnavailable(withCode("too many connections", "53300"))).toBe(true);
    expect(isStoreUnavailable(withCode("could not write to file: No space left on device", "53100"))).toBe(true);
    expect(isStoreUnavailable(withCode("connection failure", "08006"))).toBe(true);
    expect(isStoreUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isStoreUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isStoreUnavailable(withCode("database is locked", "SQLITE_BUSY"))).toBe(true);
    expect(isStoreUnavailable(withCode("disk I/O error", "SQLITE_IOERR_WRITE"))).toBe(true);
    expect(isStoreUnavailable(withCode("database or disk is full", "SQLITE_FULL"))).toBe(true);
    expect(isStoreUnavailable(markStoreUnavailable(new Error("password authentication failed")))).toBe(true);
  });

  it("does not take a refused statement or a bug for an outage", () => {
    expect(isStoreUnavailable(withCode("duplicate key value violates unique constraint", "23505"))).toBe(false);
    expect(isStoreUnavailable(withCode("UNIQUE constraint failed: configs.slug", "SQLITE_CONSTRAINT"))).toBe(false);
    expect(isStoreUnavailable(withCode("currval of sequence is not yet defined", "55P02"))).toBe(false);
    expect(isStoreUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isStoreUnavailable("ECONNREFUSED")).toBe(false);
  });
});

describe("storeOutage", () => {
  it("reports once per episode: failures and answers by turns stay one, a quiet second after an answer ends it", () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const report = (line: string) => lines.push(line);
      storeOutage.since = null;
      for (let i = 0; i < 50; i++) {
        storeOutage.failed(new Error("down"), report);
        vi.advanceTimersByTime(100);
        storeOutage.answered(report);
      }
      expect(lines).toHaveLength(1);
      vi.advanceTimersByTime(1_000);
      storeOutage.answered(report);
      expect(lines).toEqual([expect.stringMatching(/unavailable \(down\)/), "[gateway] the store answers again"]);
      // An answer right after a failure, then nothing for a while: the next failure is a new episode.
      storeOutage.failed(new Error("down again"), report);
      storeOutage.answered(report);
      vi.advanceTimersByTime(5_000);
      storeOutage.failed(new Error("down a third time"), report);
      expect(lines.filter((line) => /unavailable/.test(line))).toHaveLength(3);
    } finally {
      vi.useRealTimers();
      storeOutage.since = null;
    }
  });
});
