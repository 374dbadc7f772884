import { describe, expect, it } from "vitest";
import { findJson } from "./json-extract.ts";

describe("findJson", () => {
  it("parses a whole JSON text, scalars included", () => {
    expect(findJson('  {"a": 1}\n')).toEqual({ found: true, value: { a: 1 }, source: "text" });
    expect(findJson("42")).toEqual({ found: true, value: 42, source: "text" });
  });

  it("takes the first fenced block that parses", () => {
    const text = 'Here:\n```json\n{"bad": }\n```\nand\n```json\n[1, 2]\n```\n';
    expect(findJson(text)).toEqual({ found: true, value: [1, 2], source: "fence" });
  });

  it("finds a balanced object inside prose, braces in strings included", () => {
    const text = 'Sure! The answer is {"name": "a } b", "list": [1, {"x": 2}]} — hope it helps {';
    expect(findJson(text)).toEqual({ found: true, value: { name: "a } b", list: [1, { x: 2 }] }, source: "embedded" });
  });

  it("skips a start that does not parse and tries the next", () => {
    expect(findJson('set {a, b} then {"ok": true}')).toEqual({ found: true, value: { ok: true }, source: "embedded" });
  });

  it("reports nothing found for plain text", () => {
    expect(findJson("no json here, {not: json}")).toEqual({ found: false });
    expect(findJson("")).toEqual({ found: false });
  });
});
