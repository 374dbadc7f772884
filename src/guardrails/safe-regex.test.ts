import { describe, expect, it } from "vitest";
import { regexError, RegexTimeoutError, safeTest } from "./safe-regex.ts";

describe("safeTest", () => {
  it("answers like RegExp.test", () => {
    expect(safeTest(/b+/, "abbc")).toBe(true);
    expect(safeTest(/^x/, "abc")).toBe(false);
  });

  it("ignores a global regex's lastIndex", () => {
    const re = /a/g;
    expect(safeTest(re, "a")).toBe(true);
    expect(safeTest(re, "a")).toBe(true);
  });

  it("stops a catastrophic pattern instead of hanging", () => {
    const started = performance.now();
    expect(() => safeTest(/^(a+)+$/, `${"a".repeat(40)}b`, 50)).toThrow(RegexTimeoutError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("regexError", () => {
  it("is null for a valid pattern and a message for an invalid one", () => {
    expect(regexError("a+b", "i")).toBeNull();
    expect(regexError("(unclosed")).toMatch(/Invalid regular expression/);
    expect(regexError("a", "q")).not.toBeNull();
  });
});
