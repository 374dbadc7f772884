/**
 * OpenAI embeddings on the Gemini API (pure): one input goes to `:embedContent`, several to
 * `:batchEmbedContents` (one request per input, each naming the model), `dimensions` as
 * `outputDimensionality`. Google answers floats (`values`); the gateway encodes them as base64
 * when the client asked for it. The answers report no token counts, so the log's cost says so
 * (`usageMetadata` is read when an answer has one).
 * https://ai.google.dev/api/embeddings
 */
import { embeddingsAnswer, numbersOf, readEmbeddingsRequest, tokenCount } from "../embeddings.ts";
import type { JsonObject, OperationTransforms } from "../provider.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

function modelName(model: string): string {
  return model.replace(/^models\//, "");
}

export const geminiEmbeddings: OperationTransforms = {
  request(body, { model }) {
    const read = readEmbeddingsRequest(body, "Google Gemini");
    if ("error" in read) return read;
    const name = modelName(model);
    const part = (text: string): JsonObject => ({
      content: { parts: [{ text }] },
      ...(read.dimensions === null ? {} : { outputDimensionality: read.dimensions }),
    });
    const path = `/models/${encodeURIComponent(name)}`;
    if (read.texts.length === 1) return { body: part(read.texts[0]!), path: `${path}:embedContent` };
    return { body: { requests: read.texts.map((text) => ({ model: `models/${name}`, ...part(text) })) }, path: `${path}:batchEmbedContents` };
  },
  response(answer, context) {
    const embeddings = Array.isArray(answer.embeddings) ? answer.embeddings : [answer.embedding];
    const vectors = embeddings.map((embedding) => numbersOf(isObject(embedding) ? embedding.values : undefined));
    const usage = isObject(answer.usageMetadata) ? tokenCount(answer.usageMetadata.promptTokenCount) : null;
    return embeddingsAnswer(vectors, context, usage, "Google Gemini");
  },
};
