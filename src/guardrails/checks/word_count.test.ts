import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { countWords, wordCount } from "./word_count.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(wordCount, params, { text });

describe("word_count", () => {
  it("counts whitespace-separated tokens with a letter or digit", () => {
    expect(countWords("  Hello,  world — it's 2024 ...\n")).toBe(4);
    expect(countWords("")).toBe(0);
  });

  it("passes inside the range and fails outside it", () => {
    expect(run({ min: 2, max: 4 }, "one two three")).toMatchObject({ verdict: true, data: { count: 3 } });
    expect(run({ max: 2 }, "one two three")).toMatchObject({ verdict: false, explanation: expect.stringContaining("3 words") });
    expect(run({ min: 5 }, "one two three").verdict).toBe(false);
  });

  it("inverts with not", () => {
    expect(run({ min: 1, max: 2, not: true }, "one two three").verdict).toBe(true);
    expect(run({ min: 1, max: 5, not: true }, "one two three").verdict).toBe(false);
  });

  it("refuses params without a bound, with min above max, or with unknown keys", () => {
    expect(wordCount.params.safeParse({}).success).toBe(false);
    expect(wordCount.params.safeParse({ min: 5, max: 2 }).success).toBe(false);
    expect(wordCount.params.safeParse({ min: 1.5 }).success).toBe(false);
    expect(wordCount.params.safeParse({ min: 1, maximum: 3 }).success).toBe(false);
  });
});
