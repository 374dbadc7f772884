import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { jsonKeys } from "./json_keys.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(jsonKeys, params, { text });

const text = '```json\n{"title": "x", "summary": "y"}\n```';

describe("json_keys", () => {
  it("all: passes when every key is present", () => {
    expect(run({ keys: ["title", "summary"], operator: "all" }, text).verdict).toBe(true);
    expect(run({ keys: ["title", "tags"], operator: "all" }, text)).toMatchObject({ verdict: false, explanation: expect.stringContaining('"tags"') });
  });

  it("any and none", () => {
    expect(run({ keys: ["tags", "title"], operator: "any" }, text)).toMatchObject({ verdict: true, data: { found: ["title"] } });
    expect(run({ keys: ["tags"], operator: "any" }, text).verdict).toBe(false);
    expect(run({ keys: ["password"], operator: "none" }, text).verdict).toBe(true);
    expect(run({ keys: ["summary"], operator: "none" }, text).verdict).toBe(false);
  });

  it("does not count inherited keys", () => {
    expect(run({ keys: ["toString"], operator: "any" }, "{}").verdict).toBe(false);
  });

  it("fails without a JSON object", () => {
    expect(run({ keys: ["a"], operator: "none" }, "plain words").verdict).toBe(false);
    expect(run({ keys: ["a"], operator: "none" }, "[1, 2]")).toMatchObject({ verdict: false, explanation: expect.stringContaining("not an object") });
  });

  it("refuses empty key lists", () => {
    expect(jsonKeys.params.safeParse({ keys: [], operator: "all" }).success).toBe(false);
  });
});
