import { describe, expect, it } from "vitest";
import { isStoreUnavailable } from "./store-unavailable.ts";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("isStoreUnavailable", () => {
  it("recognises a store that is down, locked or full", () => {
    expect(isStoreUnavailable(withCode("connect ECONNREFUSED 127.0.0.1:5", "ECONNREFUSED"))).toBe(true);
    expect(isStoreUnavailable(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isStoreUnavailable(withCode("the database system is starting up", "57P03"))).toBe(true);
    expect(isStoreUnavailable(withCode("too many connections", "53300"))).toBe(true);
    expect(isStoreUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isStoreUnavailable(withCode("database is locked", "SQLITE_BUSY"))).toBe(true);
    expect(isStoreUnavailable(withCode("database or disk is full", "SQLITE_FULL"))).toBe(true);
  });

  it("does not take a refused statement or a bug for an outage", () => {
    expect(isStoreUnavailable(withCode("duplicate key value violates unique constraint", "23505"))).toBe(false);
    expect(isStoreUnavailable(withCode("UNIQUE constraint failed: configs.slug", "SQLITE_CONSTRAINT"))).toBe(false);
    expect(isStoreUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isStoreUnavailable("ECONNREFUSED")).toBe(false);
  });
});
