/**
 * OpenAI embeddings on Vertex AI's text embedding models (pure), through `:predict` as Vertex
 * documents them for `text-embedding-005`, `text-multilingual-embedding-002` and
 * `gemini-embedding-001`: one instance per input (`{content}`), `dimensions` as
 * `parameters.outputDimensionality`. Each prediction reports its input's tokens
 * (`embeddings.statistics.token_count`): their sum is the usage. `gemini-embedding-001` takes
 * one instance per request, so several inputs for it are refused with a 400.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 */
import { GatewayError } from "../../errors.ts";
import { embeddingsAnswer, numbersOf, readEmbeddingsRequest, tokenCount } from "../embeddings.ts";
import type { JsonObject, OperationTransforms } from "../provider.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export const vertexEmbeddings: OperationTransforms = {
  request(body, { model }) {
    const read = readEmbeddingsRequest(body, "Google Vertex AI");
    if ("error" in read) return read;
    if (/^gemini-embedding/.test(model) && read.texts.length > 1) {
      return { error: new GatewayError("invalid_request", `Google Vertex AI embeds one input per request with ${model.slice(0, 100)}: send one input, or one request per input.`, { param: "input" }) };
    }
    const sent: JsonObject = { instances: read.texts.map((content) => ({ content })) };
    if (read.dimensions !== null) sent.parameters = { outputDimensionality: read.dimensions };
    return { body: sent, path: `/models/${encodeURIComponent(model)}:predict` };
  },
  response(answer, context) {
    const predictions = Array.isArray(answer.predictions) ? answer.predictions.filter(isObject) : [];
    let tokens: number | null = null;
    const vectors = predictions.map((prediction) => {
      const embeddings = isObject(prediction.embeddings) ? prediction.embeddings : {};
      const counted = isObject(embeddings.statistics) ? tokenCount(embeddings.statistics.token_count) : null;
      if (counted !== null) tokens = (tokens ?? 0) + counted;
      return numbersOf(embeddings.values);
    });
    return embeddingsAnswer(vectors, context, tokens, "Google Vertex AI");
  },
};
