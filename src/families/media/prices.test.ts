import { describe, expect, it } from "vitest";
import { checkPriceTable, PriceTableSchema } from "../../providers/price-table.ts";
import priceData from "../../providers/prices.json" with { type: "json" };
import { imageCostUsd, MEDIA_PRICES_AS_OF, speechCostUsd, transcriptionCostUsd, videoCostUsd } from "./prices.ts";

describe("imageCostUsd", () => {
  it("prices each image by model, size and quality", () => {
    expect(imageCostUsd("openai", "dall-e-3", { size: "1024x1792", quality: "hd" }, 2)).toBeCloseTo(0.24, 10);
    expect(imageCostUsd("openai", "gpt-image-1", { size: "1536x1024", quality: "high" }, 1)).toBeCloseTo(0.25, 10);
    expect(imageCostUsd("openai", "gpt-image-1-mini", { size: "1024x1024", quality: "low" }, 3)).toBeCloseTo(0.015, 10);
  });

  it("uses the model's defaults for a size or quality left out, and dated ids price as their model", () => {
    expect(imageCostUsd("openai", "dall-e-3", {}, 1)).toBeCloseTo(0.04, 10);
    expect(imageCostUsd("openai", "DALL-E-2", { size: "256x256" }, 1)).toBeCloseTo(0.016, 10);
    expect(imageCostUsd("openai", "gpt-image-1-2025-04-15", { size: "1024x1024", quality: "medium" }, 1)).toBeCloseTo(0.042, 10);
  });

  it("is null when a figure is unknown: auto, an unlisted size, model or provider", () => {
    expect(imageCostUsd("openai", "gpt-image-1", {}, 1)).toBeNull();
    expect(imageCostUsd("openai", "gpt-image-1", { size: "auto", quality: "high" }, 1)).toBeNull();
    expect(imageCostUsd("openai", "dall-e-3", { size: "333x333" }, 1)).toBeNull();
    expect(imageCostUsd("openai", "imagen-9", { size: "1024x1024", quality: "standard" }, 1)).toBeNull();
    expect(imageCostUsd("groq", "dall-e-3", {}, 1)).toBeNull();
  });
});

describe("speechCostUsd", () => {
  it("prices characters of input per million (code points)", () => {
    expect(speechCostUsd("openai", "tts-1", "x".repeat(1_000_000), null)).toBeCloseTo(15, 10);
    expect(speechCostUsd("openai", "tts-1-hd", "héllo", null)).toBeCloseTo((5 * 30) / 1e6, 12);
    expect(speechCostUsd("openai", "tts-1", "👋👋", null)).toBeCloseTo((2 * 15) / 1e6, 12);
  });

  it("prices tokens when the answer reports them and the model is priced per token", () => {
    expect(speechCostUsd("openai", "gpt-4o-mini-tts", "hi", { input: 1_000_000, audioInput: 0, output: 1_000_000 })).toBeCloseTo(12.6, 10);
    // Without usage a per-token model cannot be priced from characters.
    expect(speechCostUsd("openai", "gpt-4o-mini-tts", "hi", null)).toBeNull();
  });
});

describe("transcriptionCostUsd", () => {
  it("prices minutes of audio from the duration the answer states", () => {
    expect(transcriptionCostUsd("openai", "whisper-1", { seconds: 90, tokens: null })).toBeCloseTo(0.009, 10);
  });

  it("prices text input, audio input and output tokens apart", () => {
    const tokens = { input: 1_000_000, audioInput: 1_000_000, output: 1_000_000 };
    expect(transcriptionCostUsd("openai", "gpt-4o-transcribe", { seconds: null, tokens })).toBeCloseTo(18.5, 10);
    expect(transcriptionCostUsd("openai", "gpt-4o-mini-transcribe", { seconds: 60, tokens })).toBeCloseTo(9.25, 10);
  });

  it("is null when the answer states neither duration nor tokens (the gateway does not decode audio)", () => {
    expect(transcriptionCostUsd("openai", "whisper-1", { seconds: null, tokens: null })).toBeNull();
    expect(transcriptionCostUsd("openai", "unknown-asr", { seconds: 60, tokens: null })).toBeNull();
  });
});

describe("videoCostUsd", () => {
  it("prices each second of video by model and size", () => {
    expect(videoCostUsd("openai", "sora-2", { seconds: 8, size: "1280x720" })).toBeCloseTo(0.8, 10);
    expect(videoCostUsd("openai", "sora-2-pro", { seconds: 12, size: "720x1280" })).toBeCloseTo(3.6, 10);
    expect(videoCostUsd("openai", "sora-2-pro", { seconds: 4, size: "1792x1024" })).toBeCloseTo(2, 10);
    expect(videoCostUsd("openai", "sora-2-pro-2025-10-06", { seconds: 8, size: "1024x1792" })).toBeCloseTo(4, 10);
  });

  it("takes the upstream's defaults (4 seconds, 720x1280) for what the job leaves out", () => {
    expect(videoCostUsd("openai", "sora-2", { seconds: null, size: null })).toBeCloseTo(0.4, 10);
    expect(videoCostUsd("openai", "sora-2-pro", { seconds: 8, size: null })).toBeCloseTo(2.4, 10);
  });

  it("is null for a size the model does not make, an unlisted model or provider, or no seconds", () => {
    expect(videoCostUsd("openai", "sora-2", { seconds: 4, size: "1024x1792" })).toBeNull();
    expect(videoCostUsd("openai", "veo-3", { seconds: 4, size: "1280x720" })).toBeNull();
    expect(videoCostUsd("groq", "sora-2", { seconds: 4, size: "1280x720" })).toBeNull();
    expect(videoCostUsd("openai", "sora-2", { seconds: Number.NaN, size: "1280x720" })).toBeNull();
    expect(videoCostUsd("openai", "sora-2", { seconds: 0, size: "1280x720" })).toBeNull();
  });
});

describe("the media price table", () => {
  it("is dated, sourced and checked", () => {
    expect(MEDIA_PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(() => checkPriceTable()).not.toThrow();
    const broken = structuredClone(priceData) as { media: { providers: { openai: { images: Record<string, unknown> } } } };
    broken.media.providers.openai.images["dall-e-3"] = { per_image: { standard: { big: 1 } } };
    const result = PriceTableSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.slice(0, 5)).toEqual(["media", "providers", "openai", "images", "dall-e-3"]);
    for (const provider of Object.keys(priceData.media.providers)) expect(Object.keys(priceData.media.sources)).toContain(provider);
  });

  it("dates each video entry and names its source", () => {
    const broken = structuredClone(priceData) as { media: { providers: { openai: { video: Record<string, Record<string, unknown>> } } } };
    delete broken.media.providers.openai.video["sora-2"]!.source;
    const result = PriceTableSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["media", "providers", "openai", "video", "sora-2", "source"]);
  });
});
