import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { countSentences, sentenceCount } from "./sentence_count.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(sentenceCount, params, { text });

describe("sentence_count", () => {
  it("counts sentences ended by . ! ? and a final fragment", () => {
    expect(countSentences("Hi there. How are you? Great!")).toBe(3);
    expect(countSentences('He said "go." Then left')).toBe(2);
    expect(countSentences("Pi is 3.14 today.")).toBe(1);
    expect(countSentences("... !!!")).toBe(0);
  });

  it("passes inside the range and fails outside it", () => {
    expect(run({ min: 1, max: 2 }, "One. Two.")).toMatchObject({ verdict: true, data: { count: 2 } });
    expect(run({ max: 1 }, "One. Two. Three.")).toMatchObject({ verdict: false, data: { count: 3 } });
  });

  it("inverts with not", () => {
    expect(run({ max: 1, not: true }, "One. Two.").verdict).toBe(true);
  });
});

describe("sentence_count on hostile input", () => {
  it("stays linear on a long run of end marks", () => {
    const started = performance.now();
    expect(countSentences(`${".".repeat(200_000)}x`)).toBe(1);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
