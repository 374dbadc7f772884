/**
 * What the embeddings transforms of providers with their own format share (pure): the OpenAI
 * request read and checked (the strings to embed, the fields a provider cannot take refused with
 * a 400 naming field and provider), and the OpenAI answer built from the provider's vectors,
 * as floats or, for `encoding_format: "base64"`, as little-endian float32 bytes in base64 (what
 * OpenAI sends and its clients decode). A provider that reports no token counts gets an answer
 * without `usage`: the log then says the answer reported none, rather than a made-up count.
 * https://platform.openai.com/docs/api-reference/embeddings/create
 */
import { GatewayError } from "../errors.ts";
import type { JsonObject, UnusableAnswer } from "./provider.ts";

/** The operation's id (`routes/createEmbedding.ts`): the key of a provider's embeddings transforms. */
export const EMBEDDINGS_OPERATION = "createEmbedding";

/** The fields of an OpenAI embeddings request every translation reads or may leave out. */
const KNOWN_FIELDS = new Set(["model", "input", "encoding_format", "dimensions", "user"]);

/** An embeddings request as a translation reads it. */
export interface EmbeddingsRequest {
  texts: string[];
  dimensions: number | null;
  base64: boolean;
}

const refuse = (message: string, param: string): { error: GatewayError } => ({ error: new GatewayError("invalid_request", message, { param }) });

/**
 * The request's texts, dimensions and encoding; or the 400 naming the field: token arrays (no
 * provider here takes them), a field outside the OpenAI request that the provider does not take
 * (`extra` lists the ones it does, such as Cohere's `input_type`).
 */
export function readEmbeddingsRequest(body: JsonObject, provider: string, extra: readonly string[] = []): EmbeddingsRequest | { error: GatewayError } {
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key) && !extra.includes(key)) return refuse(`${provider} does not take the embeddings field \`${key}\`.`, key);
  }
  const { input } = body;
  const texts = typeof input === "string" ? [input] : Array.isArray(input) && input.every((item) => typeof item === "string") ? (input as string[]) : null;
  if (!texts) return refuse(`${provider} embeds text only: send \`input\` as a string or an array of strings, not tokens.`, "input");
  const dimensions = typeof body.dimensions === "number" ? body.dimensions : null;
  return { texts, dimensions, base64: body.encoding_format === "base64" };
}

/** A vector as little-endian float32 bytes in base64, as OpenAI answers `encoding_format: "base64"`. */
export function base64Vector(values: readonly number[]): string {
  const floats = Float32Array.from(values);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString("base64");
}

/** A provider's vector as numbers; null when it is not a non-empty list of finite numbers. */
export function numbersOf(value: unknown): number[] | null {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "number" && Number.isFinite(item)) ? (value as number[]) : null;
}

/**
 * The OpenAI embeddings answer: one item per vector in input order, encoded as the client asked;
 * `usage` only when the provider counted the input tokens. A 2xx answer without one vector of
 * numbers per input is unusable (a 502 naming `provider`): a client reading `data[i]` for its
 * `i`th input must never get another input's vector, an empty one or none.
 */
export function embeddingsAnswer(
  vectors: readonly (number[] | null)[],
  context: { clientBody: JsonObject; model: string },
  promptTokens: number | null,
  provider: string,
): JsonObject | UnusableAnswer {
  const { input } = context.clientBody;
  const inputs = Array.isArray(input) ? input.length : 1;
  const missing = vectors.findIndex((values) => values === null);
  if (vectors.length !== inputs || missing !== -1) {
    const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`;
    const what = vectors.length !== inputs ? `${counted(vectors.length, "vector")} for ${counted(inputs, "input")}` : `no vector of numbers for input ${missing}`;
    return { unusable: new GatewayError("upstream_error", `${provider} answered with ${what}; the gateway does not pass it on.`) };
  }
  const base64 = context.clientBody.encoding_format === "base64";
  const answer: JsonObject = {
    object: "list",
    data: (vectors as readonly number[][]).map((values, index) => ({ object: "embedding", index, embedding: base64 ? base64Vector(values) : values })),
    model: context.model,
  };
  if (promptTokens !== null) answer.usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
  return answer;
}

/** A whole non-negative count, or null. */
export function tokenCount(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}
