import { describe, expect, it } from "vitest";
import priceData from "../providers/prices.json" with { type: "json" };
import { findProvider } from "../providers/catalogue.ts";
import type { Usage } from "./answer-reader.ts";
import { checkPriceTable, PriceTableSchema } from "../providers/price-table.ts";
import { computeCostUsd, PRICES_AS_OF, resolveModelPrice, computeBatchCostUsd } from "./cost.ts";

function usage(promptTokens: number, completionTokens: number, cachedTokens = 0, reasoningTokens = 0): Usage {
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cachedTokens, reasoningTokens };
}

describe("computeCostUsd", () => {
  it("prices input and output per million tokens", () => {
    expect(computeCostUsd("openai", "gpt-4o", usage(1000, 500))).toBe(0.0075);
    expect(computeCostUsd("openai", "gpt-4o-mini", usage(1_000_000, 1_000_000))).toBe(0.75);
    expect(computeCostUsd("groq", "llama-3.3-70b-versatile", usage(2000, 1000))).toBe(0.00197);
    expect(computeCostUsd("mistral", "mistral-large-latest", usage(1000, 1000))).toBe(0.008);
  });

  it("prices cached prompt tokens at the cached rate", () => {
    // (176 × 2.5 + 1024 × 1.25 + 900 × 10) / 1e6
    expect(computeCostUsd("openai", "gpt-4o", usage(1200, 900, 1024))).toBe(0.01072);
    // DeepSeek: (36 × 0.28 + 64 × 0.028 + 5 × 0.42) / 1e6
    expect(computeCostUsd("deepseek", "deepseek-chat", usage(100, 5, 64))).toBe(0.000013972);
  });

  it("adds the provider's charge for the searches it ran, per search or per grounded answer", () => {
    const searched = (searches: number): Usage => ({ ...usage(1000, 100), webSearches: searches });
    const sonnet = computeCostUsd("anthropic", "claude-sonnet-4-5", usage(1000, 100))!;
    // Anthropic: $10 per 1,000 searches.
    expect(computeCostUsd("anthropic", "claude-sonnet-4-5", searched(3))).toBe(Math.round((sonnet + 0.03) * 1e10) / 1e10);
    // Gemini 2.5: $35 per 1,000 grounded prompts, however many queries the answer ran.
    const flash = computeCostUsd("gemini", "gemini-2.5-flash", usage(1000, 100))!;
    expect(computeCostUsd("gemini", "gemini-2.5-flash", searched(1))).toBe(Math.round((flash + 0.035) * 1e10) / 1e10);
    expect(computeCostUsd("gemini", "gemini-2.5-flash", searched(4))).toBe(Math.round((flash + 0.035) * 1e10) / 1e10);
    // OpenAI: $10 per 1,000 web search calls.
    const gpt = computeCostUsd("openai", "gpt-4o", usage(1000, 100))!;
    expect(computeCostUsd("openai", "gpt-4o", searched(2))).toBe(Math.round((gpt + 0.02) * 1e10) / 1e10);
    // A provider without a search price adds nothing; an unpriced model stays unpriced.
    expect(computeCostUsd("groq", "llama-3.3-70b-versatile", searched(2))).toBe(computeCostUsd("groq", "llama-3.3-70b-versatile", usage(1000, 100)));
    expect(computeCostUsd("anthropic", "claude-unknown-model", searched(2))).toBeNull();
  });

  it("uses the input rate for cached tokens when the model has no cached rate", () => {
    expect(computeCostUsd("openai", "gpt-3.5-turbo", usage(1000, 0, 400))).toBe(0.0005);
  });

  it("does not add reasoning tokens again: they are inside the completion count", () => {
    expect(computeCostUsd("openai", "o4-mini", usage(100, 1000, 0, 800))).toBe(0.00451);
  });

  it("rounds to 10 decimal places, hiding floating-point noise", () => {
    expect(3 * 0.1).not.toBe(0.3);
    expect(computeCostUsd("openai", "gpt-4.1-nano", usage(3, 0))).toBe(0.0000003);
    expect(computeCostUsd("openai", "gpt-5-nano", usage(7, 3))).toBe(0.00000155);
    expect(computeCostUsd("openai", "gpt-5-nano", usage(1, 0, 1))).toBe(0.000000005);
  });

  it("caps cached tokens at the prompt and ignores bad counts", () => {
    expect(computeCostUsd("openai", "gpt-4o", usage(100, 0, 500))).toBe(0.000125);
    expect(computeCostUsd("openai", "gpt-4o", usage(-5, Number.NaN, -1))).toBe(0);
    expect(computeCostUsd("openai", "gpt-4o", usage(10.9, Number.POSITIVE_INFINITY))).toBe(0.000025);
  });

  it("falls back to the longest listed name followed by a dash", () => {
    expect(computeCostUsd("openai", "gpt-4o-2024-08-06", usage(1000, 1000))).toBe(0.0125);
    expect(computeCostUsd("openai", "gpt-4o-mini-2024-07-18", usage(1000, 1000))).toBe(0.00075);
    expect(resolveModelPrice("openai", "gpt-4o-mini-2024-07-18")).toEqual({ input: 0.15, cachedInput: 0.075, output: 0.6 });
    expect(resolveModelPrice("openai", "o3-mini-2025-01-31")).toEqual({ input: 1.1, cachedInput: 0.55, output: 4.4 });
    expect(resolveModelPrice("openai", "o3-2025-04-16")).toEqual({ input: 2, cachedInput: 0.5, output: 8 });
    expect(resolveModelPrice("openai", "gpt-4.1-mini-2025-04-14")).toEqual({ input: 0.4, cachedInput: 0.1, output: 1.6 });
  });

  it("prefers an exact entry over a prefix, and matches regardless of case", () => {
    expect(computeCostUsd("openai", "gpt-4o-2024-05-13", usage(1000, 1000))).toBe(0.02);
    expect(computeCostUsd("OpenAI", "GPT-4o", usage(1000, 500))).toBe(0.0075);
  });

  it("returns null for unknown models, unpriced entries and their dated ids", () => {
    expect(computeCostUsd("openai", "gpt-4omni", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openai", "gpt-4", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openai", "gpt-5.1", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openai", "gpt-4o-audio-preview", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openai", "gpt-4o-audio-preview-2024-12-17", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openai", "", usage(1, 1))).toBeNull();
  });

  it("looks only in the given provider's table", () => {
    expect(computeCostUsd("groq", "gpt-4o", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openai-compatible", "gpt-4o", usage(1, 1))).toBeNull();
    expect(computeCostUsd("openrouter", "deepseek-chat", usage(1, 1))).toBeNull();
  });

  it("gives the same answer from its resolution cache", () => {
    const first = computeCostUsd("openai", "gpt-5-mini-2025-08-07", usage(1000, 1000, 500));
    expect(first).toBe(0.0021375);
    expect(computeCostUsd("openai", "gpt-5-mini-2025-08-07", usage(1000, 1000, 500))).toBe(first);
  });
});

describe("prices.json", () => {
  it("has the table's shape, which the check enforces", () => {
    expect(() => checkPriceTable()).not.toThrow();
    const broken = structuredClone(priceData) as { providers: Record<string, Record<string, unknown>> };
    broken.providers.openai!["gpt-4o"] = { input: -1, output: 10 };
    const result = PriceTableSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["providers", "openai", "gpt-4o", "input"]);
  });

  it("marks as unverified only entries the table lists", () => {
    const table = priceData as unknown as {
      providers: Record<string, Record<string, unknown>>;
      unverified?: Record<string, string[]>;
      media: { providers: Record<string, { images?: Record<string, unknown> }>; unverified?: Record<string, string[]> };
    };
    for (const [provider, models] of Object.entries(table.unverified ?? {})) for (const model of models) expect(table.providers[provider]?.[model], `${provider}/${model}`).toBeDefined();
    for (const [provider, models] of Object.entries(table.media.unverified ?? {})) for (const model of models) expect(table.media.providers[provider]?.images?.[model], `${provider}/${model}`).toBeDefined();
  });

  it("has a date, a source per provider, and only catalogue providers", () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(priceData.note).toMatch(/re-check/);
    for (const provider of Object.keys(priceData.providers)) {
      expect(findProvider(provider), provider).toBeDefined();
      expect(priceData.sources, provider).toHaveProperty(provider);
    }
  });

  it("lists the models the gateway promises to price", () => {
    const expected: Record<string, string[]> = {
      openai: ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "o1", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-3.5-turbo", "gpt-4-turbo"],
      deepseek: ["deepseek-chat", "deepseek-reasoner"],
      mistral: ["mistral-large-latest", "mistral-small-latest"],
      groq: ["llama-3.3-70b-versatile", "llama-3.1-8b-instant"],
    };
    for (const [provider, models] of Object.entries(expected)) {
      for (const model of models) expect(resolveModelPrice(provider, model), `${provider}/${model}`).not.toBeNull();
    }
  });

  it("never prices cached input above input", () => {
    for (const [provider, models] of Object.entries(priceData.providers)) {
      for (const [model, price] of Object.entries(models as Record<string, { input: number; cached_input?: number } | null>)) {
        if (price?.cached_input !== undefined) expect(price.cached_input, `${provider}/${model}`).toBeLessThanOrEqual(price.input);
      }
    }
  });
});

describe("computeBatchCostUsd", () => {
  const usage = { promptTokens: 1_000_000, completionTokens: 100_000, totalTokens: 1_100_000, cachedTokens: 0, reasoningTokens: 0 };

  it("prices a batch line at the provider's batch rate from the table", () => {
    for (const [provider, model] of [["anthropic", "claude-sonnet-4-5"], ["bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0"], ["vertex", "gemini-2.5-flash"]] as const) {
      const onDemand = computeCostUsd(provider, model, usage)!;
      expect(onDemand).toBeGreaterThan(0);
      expect(computeBatchCostUsd(provider, model, usage)).toBeCloseTo(onDemand / 2, 10);
    }
  });

  it("is null for a provider without a batch rate or a model without a price", () => {
    expect(computeBatchCostUsd("groq", "llama-3.3-70b-versatile", usage)).toBeNull();
    expect(computeBatchCostUsd("anthropic", "no-such-model", usage)).toBeNull();
  });
});
