import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { characterCount, countCharacters } from "./character_count.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(characterCount, params, { text });

describe("character_count", () => {
  it("counts code points, whitespace included", () => {
    expect(countCharacters("a b")).toBe(3);
    expect(countCharacters("👍🏽é")).toBe(3);
  });

  it("passes inside the range and fails outside it", () => {
    expect(run({ min: 3, max: 5 }, "abcd")).toMatchObject({ verdict: true, data: { count: 4 } });
    expect(run({ max: 3 }, "abcd")).toMatchObject({ verdict: false, explanation: expect.stringContaining("4 characters") });
    expect(run({ min: 1 }, "").verdict).toBe(false);
  });

  it("inverts with not", () => {
    expect(run({ max: 3, not: true }, "abcd").verdict).toBe(true);
    expect(run({ max: 5, not: true }, "abcd").verdict).toBe(false);
  });
});
