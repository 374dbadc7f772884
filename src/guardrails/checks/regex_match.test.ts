import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { regexMatch } from "./regex_match.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(regexMatch, params, { text });

describe("regex_match", () => {
  it("passes when the text matches and fails when it does not", () => {
    expect(run({ pattern: "order #\\d+" }, "Your order #123 shipped")).toMatchObject({ verdict: true, data: { matched: true } });
    expect(run({ pattern: "order #\\d+" }, "Nothing here").verdict).toBe(false);
  });

  it("applies flags", () => {
    expect(run({ pattern: "^hello$", flags: "im" }, "x\nHELLO\ny").verdict).toBe(true);
    expect(run({ pattern: "^hello$" }, "x\nHELLO\ny").verdict).toBe(false);
  });

  it("inverts with not", () => {
    expect(run({ pattern: "secret", not: true }, "all clear").verdict).toBe(true);
    expect(run({ pattern: "secret", not: true }, "the secret is").verdict).toBe(false);
  });

  it("refuses invalid patterns, bad flags and over-long patterns", () => {
    expect(regexMatch.params.safeParse({ pattern: "(unclosed" }).success).toBe(false);
    expect(regexMatch.params.safeParse({ pattern: "a", flags: "g" }).success).toBe(false);
    expect(regexMatch.params.safeParse({ pattern: "a", flags: "v" }).success).toBe(false);
    expect(regexMatch.params.safeParse({ pattern: "a", flags: "ii" }).success).toBe(false);
    expect(regexMatch.params.safeParse({ pattern: "a".repeat(1001) }).success).toBe(false);
    expect(regexMatch.params.safeParse({ pattern: "a", extra: 1 }).success).toBe(false);
  });

  it("answers a catastrophic pattern in milliseconds", () => {
    const started = performance.now();
    expect(run({ pattern: "^(a+)+$" }, `${"a".repeat(30)}!`)).toMatchObject({ verdict: false, data: { matched: false } });
    expect(run({ pattern: "^(a+)+$" }, "a".repeat(30)).verdict).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("refuses patterns RE2 cannot run, naming the pattern and the reason", () => {
    const parsed = regexMatch.params.safeParse({ pattern: "(a)\\1" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["pattern"], message: expect.stringContaining("no backreferences or lookaround") });
    expect(regexMatch.params.safeParse({ pattern: "a(?=b)" }).success).toBe(false);
  });

  it("checks only the first 100,000 characters", () => {
    const text = `${"x".repeat(100_000)}needle`;
    expect(run({ pattern: "needle" }, text).verdict).toBe(false);
    expect(run({ pattern: "x{1000}" }, text).explanation).toContain("first 100000 characters");
  });
});
