import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffLines, MAX_DIFF_EDITS, type DiffLine } from "./line-diff.ts";

const side = (lines: DiffLine[], keep: "delete" | "insert") => lines.filter((line) => line.op === "equal" || line.op === keep).map((line) => line.text);

describe("diffLines", () => {
  it("keeps common lines and marks the rest", () => {
    expect(diffLines("a\nb\nc", "a\nx\nc")).toEqual([
      { op: "equal", text: "a" },
      { op: "delete", text: "b" },
      { op: "insert", text: "x" },
      { op: "equal", text: "c" },
    ]);
    expect(diffLines("", "one")).toEqual([{ op: "insert", text: "one" }]);
    expect(diffLines("same", "same")).toEqual([{ op: "equal", text: "same" }]);
  });

  it("rebuilds both texts and is minimal for random line sequences", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 }), fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 }), (a, b) => {
        const lines = diffLines(a.join("\n"), b.join("\n"));
        expect(side(lines, "delete")).toEqual(a);
        expect(side(lines, "insert")).toEqual(b);
        // Minimal: the equal lines are a longest common subsequence.
        const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
        for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
        expect(lines.filter((line) => line.op === "equal")).toHaveLength(lcs[0]![0]!);
      }),
    );
  });

  it("answers texts too far apart as replaced whole, quickly", () => {
    const a = Array.from({ length: 3_000 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 3_000 }, (_, i) => `b${i}`).join("\n");
    const started = performance.now();
    const lines = diffLines(a, b);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(lines.filter((line) => line.op === "delete")).toHaveLength(3_000);
    expect(lines.findIndex((line) => line.op === "insert")).toBe(3_000);
    expect(MAX_DIFF_EDITS).toBeLessThan(6_000);
  });
});
