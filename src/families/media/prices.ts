/**
 * Prices the operations not billed (only) per token: images per image, speech per character,
 * transcriptions per minute, video per second, from the `media` section of `src/providers/prices.json` (its
 * `sources` name the pricing pages). Each rule returns null when a figure it needs is unknown
 * (an `auto` size, an upload whose duration the answer does not state): the log then says no
 * cost rather than a guess. Never throws.
 */
import type { MediaPriceTable } from "../../providers/price-table.ts";
import priceData from "../../providers/prices.json" with { type: "json" };

// Its shape is checked when the gateway starts (`checkPriceTable`).
const media = (priceData as unknown as { media: MediaPriceTable }).media;
type ProviderPrices = MediaPriceTable["providers"][string];

/** The entry for a model: its exact name (any case), else the longest listed name that, followed by `-`, begins it. */
function priced<T>(entries: Record<string, T> | undefined, model: string): T | null {
  if (!entries) return null;
  const name = model.toLowerCase();
  let best: { length: number; value: T } | null = null;
  for (const [listed, value] of Object.entries(entries)) {
    const key = listed.toLowerCase();
    if (key === name) return value;
    if (name.startsWith(`${key}-`) && (!best || key.length > best.length)) best = { length: key.length, value };
  }
  return best?.value ?? null;
}

function section<K extends keyof ProviderPrices>(provider: string, kind: K): ProviderPrices[K] {
  return media.providers[provider.toLowerCase()]?.[kind];
}

const usd = (value: number): number => Math.round(value * 1e10) / 1e10;
const count = (value: number | null | undefined): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * `images` images of the model at the request's size and quality (the model's defaults when the
 * request leaves them out): one price per image, or by quality then size, or by the size's pixels
 * then quality. Null for an unlisted model, size or quality, `auto` included.
 */
export function imageCostUsd(provider: string, model: string, request: { size?: unknown; quality?: unknown }, images: number): number | null {
  const prices = priced(section(provider, "images"), model);
  if (!prices) return null;
  if (prices.each !== undefined) return usd(prices.each * Math.floor(count(images)));
  const size = typeof request.size === "string" ? request.size : prices.defaults?.size;
  const quality = typeof request.quality === "string" ? request.quality : prices.defaults?.quality;
  const each = size && quality ? (prices.tiers ? tierPrice(prices.tiers, size, quality) : prices.per_image?.[quality]?.[size]) : undefined;
  return each === undefined ? null : usd(each * Math.floor(count(images)));
}

/** The price of an image of `size` (WIDTHxHEIGHT) at `quality` from the first tier that holds its pixels. */
function tierPrice(tiers: readonly { max_pixels: number; per_image: Record<string, number> }[], size: string, quality: string): number | undefined {
  const match = /^(\d+)x(\d+)$/.exec(size);
  if (!match) return undefined;
  const pixels = Number(match[1]) * Number(match[2]);
  return tiers.find((tier) => pixels <= tier.max_pixels)?.per_image[quality];
}

/** Token counts a speech or transcription answer reports. */
export interface MediaTokens {
  /** Text input tokens (for a transcription, the prompt's). */
  input: number;
  /** Audio input tokens (transcriptions). */
  audioInput: number;
  output: number;
}

/**
 * Speech: per token when the answer reported tokens and the model has token prices, else per
 * million characters of `input` (code points). Null when the model has neither price.
 */
export function speechCostUsd(provider: string, model: string, input: string, tokens: MediaTokens | null): number | null {
  const prices = priced(section(provider, "speech"), model);
  if (!prices) return null;
  if (tokens && prices.per_million_tokens) {
    return usd(((count(tokens.input) + count(tokens.audioInput)) * prices.per_million_tokens.input + count(tokens.output) * prices.per_million_tokens.output) / 1e6);
  }
  if (prices.per_million_characters === undefined) return null;
  return usd((Array.from(input).length * prices.per_million_characters) / 1e6);
}

/**
 * Transcription or translation: per token when the answer reported tokens and the model has
 * token prices, else per minute of the audio's duration as the answer states it (seconds).
 * Null when the answer states neither: the gateway does not decode the upload.
 */
export function transcriptionCostUsd(provider: string, model: string, answer: { seconds: number | null; tokens: MediaTokens | null }): number | null {
  const prices = priced(section(provider, "transcription"), model);
  if (!prices) return null;
  const { tokens, seconds } = answer;
  if (tokens && prices.per_million_tokens) {
    const { input, audio_input, output } = prices.per_million_tokens;
    return usd((count(tokens.input) * input + count(tokens.audioInput) * audio_input + count(tokens.output) * output) / 1e6);
  }
  if (seconds === null || prices.per_minute === undefined) return null;
  return usd((count(seconds) / 60) * prices.per_minute);
}

/**
 * A video job (created or remixed): per second of video at its size, for the model. `seconds`
 * and `size` left out (null) take the entry's defaults, the upstream's own. Null for an unlisted
 * model or size, or seconds that are not a positive number.
 */
export function videoCostUsd(provider: string, model: string, job: { seconds: number | null; size: string | null }): number | null {
  const prices = priced(section(provider, "video"), model);
  if (!prices) return null;
  const seconds = job.seconds ?? prices.defaults.seconds;
  const each = prices.per_second[job.size ?? prices.defaults.size];
  if (each === undefined || !Number.isFinite(seconds) || seconds <= 0) return null;
  return usd(each * seconds);
}

/** The date the media prices were last checked against their sources. */
export const MEDIA_PRICES_AS_OF: string = media.as_of;
