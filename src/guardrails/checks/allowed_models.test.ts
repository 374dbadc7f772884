import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { allowedModels } from "./allowed_models.ts";

const run = (params: Record<string, unknown>, model: string | null) =>
  runSync(allowedModels, params, { model });

describe("allowed_models", () => {
  it("passes listed models and fails others", () => {
    expect(run({ models: ["gpt-4o-mini", "claude-3"] }, "gpt-4o-mini").verdict).toBe(true);
    expect(run({ models: ["gpt-4o-mini"] }, "gpt-4o")).toMatchObject({ verdict: false, explanation: 'The model "gpt-4o" is not in the allowed models.' });
  });

  it("supports a trailing * prefix wildcard", () => {
    expect(run({ models: ["gpt-4o*"] }, "gpt-4o-2024-08-06").verdict).toBe(true);
    expect(run({ models: ["gpt-4o*"] }, "gpt-4.1").verdict).toBe(false);
    expect(run({ models: ["*"] }, "anything").verdict).toBe(true);
  });

  it("not: true makes a deny list", () => {
    expect(run({ models: ["o1*"], not: true }, "o1-preview").verdict).toBe(false);
    expect(run({ models: ["o1*"], not: true }, "gpt-4o").verdict).toBe(true);
  });

  it("fails without a model, whatever the mode", () => {
    expect(run({ models: ["*"] }, null).verdict).toBe(false);
    expect(run({ models: ["x"], not: true }, null).verdict).toBe(false);
  });

  it("refuses an empty list and a * that is not trailing", () => {
    expect(allowedModels.params.safeParse({ models: [] }).success).toBe(false);
    expect(allowedModels.params.safeParse({ models: ["gpt-*-mini"] }).success).toBe(false);
  });
});
