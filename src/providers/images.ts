/**
 * What the image generation transforms of providers with their own format share (pure): the
 * OpenAI request read and checked, and the OpenAI answer from the provider's base64 images.
 * These providers answer image bytes only, never a URL: a request for `response_format: "url"`
 * is refused with a 400 naming the field and the provider (the default and `b64_json` work).
 * https://platform.openai.com/docs/api-reference/images/create
 */
import { GatewayError } from "../errors.ts";
import type { JsonObject, UnusableAnswer } from "./provider.ts";

/** The operation's id (`routes/createImage.ts`): the key of a provider's image transforms. */
export const IMAGES_OPERATION = "createImage";

const KNOWN_FIELDS = new Set(["model", "prompt", "n", "size", "quality", "response_format", "user", "output_format", "stream"]);

/** An image request as a translation reads it; `size` null for none or `auto`. */
export interface ImageRequest {
  prompt: string;
  n: number;
  size: { width: number; height: number } | null;
  /** The OpenAI `quality`, null for none or `auto`. */
  quality: string | null;
  /** The OpenAI `output_format`, null for none. */
  outputFormat: string | null;
}

const refuse = (message: string, param: string): { error: GatewayError } => ({ error: new GatewayError("invalid_request", message, { param }) });
const sent = (value: unknown): boolean => value !== undefined && value !== null;

/** The request, or the 400 naming the field the provider cannot take (`maxImages` its most per call). */
export function readImageRequest(body: JsonObject, provider: string, maxImages: number): ImageRequest | { error: GatewayError } {
  for (const [key, value] of Object.entries(body)) {
    if (sent(value) && !KNOWN_FIELDS.has(key)) return refuse(`${provider} does not take the image field \`${key}\`.`, key);
  }
  if (typeof body.prompt !== "string" || body.prompt === "") return refuse("An image needs a prompt.", "prompt");
  if (body.response_format === "url") {
    return refuse(`${provider} answers images as base64 only: leave out response_format or send "b64_json".`, "response_format");
  }
  if (body.stream === true) return refuse(`${provider} does not stream image generation.`, "stream");
  const n = sent(body.n) ? body.n : 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > maxImages) return refuse(`${provider} makes 1 to ${maxImages} images per request.`, "n");
  let size: ImageRequest["size"] = null;
  if (sent(body.size) && body.size !== "auto") {
    const match = typeof body.size === "string" ? /^(\d{1,5})x(\d{1,5})$/.exec(body.size) : null;
    if (!match) return refuse("size is WIDTHxHEIGHT (such as 1024x1024) or auto.", "size");
    size = { width: Number(match[1]), height: Number(match[2]) };
  }
  const quality = typeof body.quality === "string" && body.quality !== "auto" ? body.quality : null;
  const outputFormat = typeof body.output_format === "string" ? body.output_format : null;
  return { prompt: body.prompt, n, size, quality, outputFormat };
}

/**
 * The OpenAI images answer from base64 images; with none (every image withheld by the
 * provider's filter, or an answer without images) it is unusable: a 502 naming `provider` and
 * the reason it gave, rather than a 200 with no image.
 */
export function imagesAnswer(images: readonly string[], outputFormat: string | null, provider: string, reason: string | null = null): JsonObject | UnusableAnswer {
  if (images.length === 0) {
    const why = reason ? `: ${reason.slice(0, 500).replace(/[.\s]+$/, "")}` : "";
    return { unusable: new GatewayError("upstream_error", `${provider} answered with no image${why}.`) };
  }
  return {
    created: Math.floor(Date.now() / 1000),
    data: images.map((b64_json) => ({ b64_json })),
    ...(outputFormat ? { output_format: outputFormat } : {}),
  };
}
