/**
 * The Gemini API's embedding calls as OpenAI embeddings (pure): `embedContent` and
 * `batchEmbedContents` bodies as one `POST /v1/embeddings` body, and its answer as Google's
 * `{embedding: {values}}` or `{embeddings: [{values}]}`, with the usage as `usageMetadata` (the
 * log prices it). `taskType` and `title` have no place in the embeddings API and are not sent.
 * https://ai.google.dev/api/embeddings
 * https://platform.openai.com/docs/api-reference/embeddings/create
 */
import { fail, GatewayError, ok, type Result } from "../../errors.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, numberField, objectField, Refusal, stringField } from "./json.ts";

/** The embeddings body of an `embedContent` body, for the path's model. Never throws. */
export function embeddingsRequestFromEmbedContent(body: JsonObject, model: string): Result<JsonObject, GatewayError> {
  return refusable(() => embeddingsBody(model, contentText(objectField(body, "content"), "content"), numberField(body, "outputDimensionality")));
}

/**
 * The embeddings body of a `batchEmbedContents` body: every request's text one input, in order.
 * Each request names the path's model (Google requires it) and all the same dimensions (one call has one).
 */
export function embeddingsRequestFromBatch(body: JsonObject, model: string): Result<JsonObject, GatewayError> {
  return refusable(() => {
    const requests = arrayField(body, "requests");
    const wanted = numberField(requests[0], "outputDimensionality");
    const inputs = requests.map((request, index) => {
      const named = stringField(request, "model");
      if (named !== null && named.replace(/^models\//, "") !== model) {
        throw new Refusal(`Every request of a batch must name the path's model (models/${model}), not ${named}.`, `requests.${index}.model`);
      }
      if (numberField(request, "outputDimensionality") !== wanted) {
        throw new Refusal("Every request of a batch must ask for the same outputDimensionality: one embeddings call has one.", `requests.${index}.outputDimensionality`);
      }
      return contentText(objectField(request, "content"), `requests.${index}.content`);
    });
    return embeddingsBody(model, inputs, wanted);
  });
}

function refusable(translate: () => JsonObject): Result<JsonObject, GatewayError> {
  try {
    return ok(translate());
  } catch (error) {
    if (error instanceof Refusal) return fail(new GatewayError("invalid_request", error.message, { param: error.param }));
    throw error;
  }
}

function embeddingsBody(model: string, input: string | string[], wanted: number | null): JsonObject {
  // Floats, which Google's `values` are; the embeddings API's own default, asked for all the same.
  const body: JsonObject = { model, input, encoding_format: "float" };
  if (wanted !== null) body.dimensions = wanted;
  return body;
}

/** The text of a content to embed: its text parts joined; any other part has no embeddings form. */
function contentText(content: JsonObject | null, at: string): string {
  return arrayField(content, "parts")
    .map((part, index) => {
      const text = stringField(part, "text");
      if (text === null) throw new Refusal("Only text parts can be embedded through the embeddings API.", `${at}.parts.${index}`);
      return text;
    })
    .join("");
}

/** An embeddings answer's vectors in input order, as Google's `{values}`. */
function embeddingsOf(answer: JsonObject): JsonObject[] {
  return arrayField(answer, "data")
    .filter(isObject)
    .map((item, position) => ({ index: numberField(item, "index") ?? position, values: valuesOf(item.embedding) }))
    .sort((a, b) => a.index - b.index)
    .map(({ values }) => ({ values }));
}

/** A vector as numbers: a base64 one (a provider that ignored `encoding_format`) is decoded as little-endian float32s. */
function valuesOf(embedding: unknown): number[] {
  if (Array.isArray(embedding)) return embedding.filter((value): value is number => typeof value === "number");
  if (typeof embedding !== "string") return [];
  const bytes = Buffer.from(embedding, "base64");
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)));
}

/** The embeddings answer's usage as `usageMetadata`; absent when it has none. */
function withUsage(response: JsonObject, answer: JsonObject): JsonObject {
  const usage = objectField(answer, "usage");
  const prompt = numberField(usage, "prompt_tokens");
  if (prompt !== null) response.usageMetadata = { promptTokenCount: prompt, totalTokenCount: numberField(usage, "total_tokens") ?? prompt };
  return response;
}

/** An embeddings answer as `embedContent`'s. */
export function embedContentFromEmbeddings(answer: JsonObject): JsonObject {
  return withUsage({ embedding: embeddingsOf(answer)[0] ?? { values: [] } }, answer);
}

/** An embeddings answer as `batchEmbedContents`'s. */
export function batchEmbedContentsFromEmbeddings(answer: JsonObject): JsonObject {
  return withUsage({ embeddings: embeddingsOf(answer) }, answer);
}

/** The strings to embed (what input guardrails judge), from the embeddings body the core holds. */
export function embeddingsInputText(body: JsonObject): string {
  const { input } = body;
  if (typeof input === "string") return input;
  return Array.isArray(input) ? input.filter((item): item is string => typeof item === "string").join("\n") : "";
}
