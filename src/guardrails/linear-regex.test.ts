import { describe, expect, it } from "vitest";
import { compilePattern, MAX_PROGRAM_SIZE } from "./linear-regex.ts";

function regex(pattern: string, flags?: string) {
  const compiled = compilePattern(pattern, flags);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.regex;
}

describe("compilePattern", () => {
  it("answers like RegExp.test for the syntax both share", () => {
    expect(regex("b+").test("abbc")).toBe(true);
    expect(regex("^x").test("abc")).toBe(false);
    expect(regex("(?<word>\\w+)@\\d{2,3}\\b").test("call ada@123 now")).toBe(true);
    expect(regex("^hello$", "im").test("x\nHELLO\ny")).toBe(true);
    expect(regex("a.b", "s").test("a\nb")).toBe(true);
    expect(regex("^.$", "u").test("😀")).toBe(true);
  });

  it("answers the catastrophic pattern on the attack input in milliseconds", () => {
    const re = regex("^(a+)+$");
    const started = performance.now();
    expect(re.test(`${"a".repeat(30)}!`)).toBe(false);
    expect(re.test(`${"a".repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("refuses backreferences and lookaround, saying what RE2 lacks", () => {
    for (const pattern of ["(a)\\1", "(?<n>a)\\k<n>", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b"]) {
      const compiled = compilePattern(pattern);
      expect(compiled.ok, pattern).toBe(false);
      if (!compiled.ok) expect(compiled.message).toContain("no backreferences or lookaround");
    }
  });

  it("refuses bad flags, syntax errors and programs past the size limit", () => {
    expect(compilePattern("a", "g")).toMatchObject({ ok: false, message: expect.stringContaining("flags") });
    expect(compilePattern("a", "v")).toMatchObject({ ok: false });
    expect(compilePattern("(unclosed")).toMatchObject({ ok: false, message: expect.stringContaining("missing closing )") });
    expect(compilePattern("(?:[a-z]{0,9}){100}")).toMatchObject({ ok: false, message: expect.stringContaining(`${MAX_PROGRAM_SIZE} allowed`) });
    expect(compilePattern("[a-z]{900}").ok).toBe(true);
  });
});
