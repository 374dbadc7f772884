import { describe, expect, it } from "vitest";
import { computeCostUsd, resolveModelPrice } from "../../operation/cost.ts";

describe("anthropic prices", () => {
  it("prices dated model ids by their family, and not a newer family by an older one", () => {
    expect(resolveModelPrice("anthropic", "claude-sonnet-4-5-20250929")).toEqual({ input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 });
    expect(resolveModelPrice("anthropic", "claude-haiku-4-5-20251001")?.input).toBe(1);
    expect(resolveModelPrice("anthropic", "claude-opus-4-1-20250805")?.input).toBe(15);
    expect(resolveModelPrice("anthropic", "claude-opus-4-9")).toBeNull();
  });

  it("prices cache reads, cache writes and the rest of the prompt apart", () => {
    // 1M uncached input at $3, 1M cache reads at $0.30, 1M cache writes at $3.75, 1M output at $15.
    const usage = { promptTokens: 3_000_000, completionTokens: 1_000_000, totalTokens: 4_000_000, cachedTokens: 1_000_000, reasoningTokens: 0, cacheWriteTokens: 1_000_000 };
    expect(computeCostUsd("anthropic", "claude-sonnet-4-5", usage)).toBe(22.05);
    // Without a listed cache_write price a written token costs what input does.
    expect(computeCostUsd("openai", "gpt-4o-mini", { ...usage, cachedTokens: 0 })).toBe(computeCostUsd("openai", "gpt-4o-mini", { ...usage, cachedTokens: 0, cacheWriteTokens: 0 }));
  });
});
