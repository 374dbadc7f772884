import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { containsCode, countCodeLines, findFencedBlocks } from "./contains_code.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(containsCode, params, { text });

const fenced = "Try this:\n```py\nprint('hi')\n```\nand\n~~~\nplain\n~~~\n";
const bareCode = "Use it like so:\nimport fs from \"node:fs\";\nconst data = fs.readFileSync(\"a.txt\");\nThat is all.";
const prose = "Here is my plan: first, we meet; then we decide. For (most) people this works {mostly}.\nReturn to sender.";

describe("code detection", () => {
  it("finds fenced blocks with normalized languages, an unclosed one included", () => {
    expect(findFencedBlocks(fenced)).toEqual([{ language: "python" }, { language: null }]);
    expect(findFencedBlocks("```TS\nlet a = 1;")).toEqual([{ language: "typescript" }]);
  });

  it("counts unmistakable code lines and leaves prose alone", () => {
    expect(countCodeLines(bareCode)).toBe(2);
    expect(countCodeLines("def add(a, b):\n    return a + b\nSELECT id FROM users WHERE id = 1")).toBe(2);
    expect(countCodeLines(prose)).toBe(0);
  });
});

describe("contains_code", () => {
  it("passes when code is found (default format any) and fails for prose", () => {
    expect(run({}, fenced)).toMatchObject({ verdict: true, data: { blocks: 2, languages: ["python"] } });
    expect(run({}, bareCode)).toMatchObject({ verdict: true, data: { blocks: 0, code_lines: 2 } });
    expect(run({}, prose)).toMatchObject({ verdict: false, explanation: "The text contains no code. Code is required." });
  });

  it("not: true forbids code", () => {
    expect(run({ not: true }, prose).verdict).toBe(true);
    expect(run({ not: true }, fenced)).toMatchObject({ verdict: false, explanation: expect.stringContaining("not allowed") });
  });

  it("format fenced ignores unfenced code", () => {
    expect(run({ format: "fenced" }, bareCode).verdict).toBe(false);
    expect(run({ format: "fenced", not: true }, bareCode).verdict).toBe(true);
  });

  it("languages counts only blocks tagged with those languages", () => {
    expect(run({ languages: ["python"] }, fenced).verdict).toBe(true);
    expect(run({ languages: ["javascript"] }, fenced).verdict).toBe(false);
    expect(run({ languages: ["js"], not: true }, "```javascript\nx()\n```").verdict).toBe(false);
  });

  it("refuses unknown formats and empty language lists", () => {
    expect(containsCode.params.safeParse({ format: "inline" }).success).toBe(false);
    expect(containsCode.params.safeParse({ languages: [] }).success).toBe(false);
  });
});
