import { describe, expect, it } from "vitest";
import { MAX_SECTION_DEPTH, MAX_TEMPLATE_BYTES, nestsDeeperThan, templateLimitProblem } from "./template-limits.ts";

const nested = (depth: number, open = "{{", close = "}}") => `${`${open}#a${close}`.repeat(depth)}x${`${open}/a${close}`.repeat(depth)}`;

describe("nestsDeeperThan", () => {
  it("counts nested sections and inverted sections, not siblings", () => {
    expect(nestsDeeperThan(nested(3), 3)).toBe(false);
    expect(nestsDeeperThan(nested(4), 3)).toBe(true);
    expect(nestsDeeperThan("{{^a}}{{#b}}{{^c}}{{#d}}x{{/d}}{{/c}}{{/b}}{{/a}}", 3)).toBe(true);
    expect(nestsDeeperThan("{{#a}}x{{/a}}".repeat(100), 1)).toBe(false);
  });

  it("follows set-delimiter tags and skips comments and triple mustaches", () => {
    expect(nestsDeeperThan(`{{=<% %>=}}${nested(4, "<%", "%>")}`, 3)).toBe(true);
    expect(nestsDeeperThan(`{{! {{#a}} }}{{{#b}}}{{#c}}x{{/c}}`, 1)).toBe(false);
  });

  it("scans the 20,000-level template in milliseconds", () => {
    const started = performance.now();
    expect(nestsDeeperThan(nested(20_000), MAX_SECTION_DEPTH)).toBe(true);
    expect(nestsDeeperThan("{{a}}".repeat(50_000), MAX_SECTION_DEPTH)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("templateLimitProblem", () => {
  it("names the message where the byte total passes the limit, counting UTF-8 bytes", () => {
    const half = "é".repeat(MAX_TEMPLATE_BYTES / 4);
    expect(templateLimitProblem([half, half])).toBeNull();
    expect(templateLimitProblem([half, half, "x"])).toMatchObject({ index: 2, message: expect.stringContaining("256 KiB") });
  });

  it("names the message that nests too deep", () => {
    expect(templateLimitProblem(["fine", nested(MAX_SECTION_DEPTH)])).toBeNull();
    expect(templateLimitProblem(["fine", nested(MAX_SECTION_DEPTH + 1)])).toMatchObject({ index: 1, message: expect.stringContaining("deeper than 32") });
  });
});
