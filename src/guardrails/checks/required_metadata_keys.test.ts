import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { requiredMetadataKeys } from "./required_metadata_keys.ts";

const run = (params: Record<string, unknown>, metadata: Record<string, string>) =>
  runSync(requiredMetadataKeys, params, { metadata });

describe("required_metadata_keys", () => {
  it("all (default): passes only when every key is present", () => {
    expect(run({ keys: ["team", "env"] }, { team: "a", env: "", other: "x" }).verdict).toBe(true);
    expect(run({ keys: ["team", "env"] }, { team: "a" })).toMatchObject({
      verdict: false,
      explanation: 'Missing 1 metadata key: "env".',
      data: { missing: ["env"] },
    });
  });

  it("any: passes when one key is present", () => {
    expect(run({ keys: ["team", "env"], operator: "any" }, { env: "prod" }).verdict).toBe(true);
    expect(run({ keys: ["team", "env"], operator: "any" }, {}).verdict).toBe(false);
  });

  it("does not count inherited properties", () => {
    expect(run({ keys: ["constructor"] }, {}).verdict).toBe(false);
  });

  it("refuses an empty key list and the none operator", () => {
    expect(requiredMetadataKeys.params.safeParse({ keys: [] }).success).toBe(false);
    expect(requiredMetadataKeys.params.safeParse({ keys: ["a"], operator: "none" }).success).toBe(false);
  });
});
