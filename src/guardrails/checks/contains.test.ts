import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { contains } from "./contains.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(contains, params, { text });

const text = "The Quick brown fox";

describe("contains", () => {
  it("any: passes when one word is found", () => {
    expect(run({ words: ["quick", "slow"], operator: "any" }, text)).toMatchObject({ verdict: true, data: { found: ["quick"] } });
    expect(run({ words: ["slow", "cat"], operator: "any" }, text).verdict).toBe(false);
  });

  it("all: passes only when every word is found", () => {
    expect(run({ words: ["quick", "fox"], operator: "all" }, text).verdict).toBe(true);
    const outcome = run({ words: ["quick", "dog"], operator: "all" }, text);
    expect(outcome).toMatchObject({ verdict: false, explanation: expect.stringContaining('"dog"') });
  });

  it("none: fails when any word is found", () => {
    expect(run({ words: ["dog"], operator: "none" }, text).verdict).toBe(true);
    expect(run({ words: ["dog", "brown"], operator: "none" }, text)).toMatchObject({ verdict: false, data: { found: ["brown"] } });
  });

  it("ignores case unless case_sensitive", () => {
    expect(run({ words: ["quick"], operator: "any", case_sensitive: true }, text).verdict).toBe(false);
    expect(run({ words: ["Quick"], operator: "any", case_sensitive: true }, text).verdict).toBe(true);
  });

  it("refuses empty word lists, empty words and a missing or unknown operator", () => {
    expect(contains.params.safeParse({ words: [], operator: "any" }).success).toBe(false);
    expect(contains.params.safeParse({ words: [""], operator: "any" }).success).toBe(false);
    expect(contains.params.safeParse({ words: ["a"] }).success).toBe(false);
    expect(contains.params.safeParse({ words: ["a"], operator: "some" }).success).toBe(false);
  });
});
