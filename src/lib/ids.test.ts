import { describe, expect, it } from "vitest";
import { isoNow, uuidv7 } from "./ids.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidv7", () => {
  it("is an RFC 9562 version 7 UUID carrying the millisecond timestamp", () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    const id = uuidv7(now);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(now);
  });

  it("sorts ids made later after earlier ones, and never repeats", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => uuidv7(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => uuidv7(1_700_000_000_000))).size).toBe(1000);
  });
});

describe("isoNow", () => {
  it("formats each millisecond as ISO 8601 UTC, also when called again within it", () => {
    expect(isoNow(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe("2026-01-02T03:04:05.006Z");
    expect(isoNow(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe("2026-01-02T03:04:05.006Z");
    expect(isoNow(Date.UTC(2026, 0, 2, 3, 4, 5, 7))).toBe("2026-01-02T03:04:05.007Z");
  });
});
