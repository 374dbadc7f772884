import { describe, expect, it } from "vitest";
import type { GuardrailCheckSpec } from "../records/control-plane.ts";
import { CHECK_TYPES, validateCheckSpecs } from "./registry.ts";

function errorOf(specs: unknown) {
  const result = validateCheckSpecs(specs as GuardrailCheckSpec[]);
  if (result.ok) throw new Error("expected a validation error");
  return result.error;
}

describe("registry", () => {
  it("knows every built-in check once", () => {
    expect([...CHECK_TYPES].sort()).toEqual(
      [
        "allowed_models", "character_count", "contains", "contains_code", "json_keys", "json_schema", "pii",
        "regex_match", "required_metadata_keys", "sentence_count", "valid_urls", "webhook", "word_count",
      ].sort(),
    );
  });
});

describe("validateCheckSpecs", () => {
  it("accepts valid specs and returns them as stored", () => {
    const specs = [
      { type: "regex_match", params: { pattern: "^ok", flags: "i" }, note: "dropped" },
      { type: "pii", params: {} },
      { type: "json_schema", params: { schema: { type: "object", required: ["a"] } } },
    ];
    const result = validateCheckSpecs(specs as GuardrailCheckSpec[]);
    expect(result).toEqual({
      ok: true,
      value: [
        { type: "regex_match", params: { pattern: "^ok", flags: "i" } },
        { type: "pii", params: {} },
        { type: "json_schema", params: { schema: { type: "object", required: ["a"] } } },
      ],
    });
    expect(validateCheckSpecs([])).toEqual({ ok: true, value: [] });
  });

  it("refuses an unknown type naming checks.<i>.type and listing the known ones", () => {
    const error = errorOf([{ type: "pii", params: {} }, { type: "toxicity", params: {} }]);
    expect(error).toMatchObject({ code: "invalid_request", status: 400, param: "checks.1.type" });
    expect(error.message).toContain('"toxicity"');
    for (const type of CHECK_TYPES) expect(error.message).toContain(type);
    expect(errorOf([{ params: {} }]).param).toBe("checks.0.type");
  });

  it("names the invalid param as checks.<i>.params.<name>", () => {
    expect(errorOf([{ type: "regex_match", params: { pattern: "(" } }])).toMatchObject({ param: "checks.0.params.pattern" });
    expect(errorOf([{ type: "json_schema", params: { schema: { type: 12 } } }])).toMatchObject({ param: "checks.0.params.schema" });
    expect(errorOf([{ type: "webhook", params: { url: "https://x.example", timeout_ms: 60_000 } }])).toMatchObject({
      param: "checks.0.params.timeout_ms",
    });
    expect(errorOf([{ type: "word_count", params: {} }])).toMatchObject({ param: "checks.0.params.min" });
  });

  it("names the param of a nested issue and unknown param keys", () => {
    const nested = errorOf([{ type: "contains", params: { words: ["a", ""], operator: "any" } }]);
    expect(nested.param).toBe("checks.0.params.words");
    expect(nested.message).toContain("checks.0.params.words.1");
    const unknown = errorOf([{ type: "pii", params: {} }, { type: "pii", params: { kinds: ["email"] } }]);
    expect(unknown).toMatchObject({ param: "checks.1.params.kinds" });
    expect(unknown.message).toContain('"kinds"');
  });

  it("refuses malformed specs without throwing", () => {
    expect(errorOf([null]).param).toBe("checks.0");
    expect(errorOf([{ type: "pii", params: [] }]).param).toBe("checks.0.params");
    expect(errorOf("pii").param).toBe("checks");
    expect(errorOf(Array.from({ length: 51 }, () => ({ type: "pii", params: {} }))).param).toBe("checks");
  });
});
