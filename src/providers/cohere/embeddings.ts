/**
 * OpenAI embeddings on Cohere's v2 Embed API (pure): `POST /v2/embed` with the inputs as `texts`,
 * an `input_type` (required by Cohere's v3 and later models: the client's Cohere `input_type`,
 * else `search_document`) and `embedding_types: ["float"]`; `dimensions` as `output_dimension`,
 * which only Embed v4 takes. The answer's `embeddings.float` are the vectors and
 * `meta.billed_units.input_tokens` the usage.
 * https://docs.cohere.com/reference/embed
 */
import { GatewayError } from "../../errors.ts";
import { embeddingsAnswer, numbersOf, readEmbeddingsRequest, tokenCount } from "../embeddings.ts";
import type { JsonObject, OperationTransforms } from "../provider.ts";

/** The `input_type`s Cohere's text embeddings take (on Cohere and on Bedrock). */
export const COHERE_INPUT_TYPES: readonly string[] = ["search_document", "search_query", "classification", "clustering"];
const V4_DIMENSIONS = [256, 512, 1024, 1536];
const MAX_TEXTS = 96;

const field = (value: unknown, key: string): unknown => (value && typeof value === "object" ? (value as JsonObject)[key] : undefined);
const refuse = (message: string, param: string): { error: GatewayError } => ({ error: new GatewayError("invalid_request", message, { param }) });

export const cohereEmbeddings: OperationTransforms = {
  request(body, { model }) {
    const read = readEmbeddingsRequest(body, "Cohere", ["input_type"]);
    if ("error" in read) return read;
    if (read.texts.length > MAX_TEXTS) return refuse(`Cohere embeds at most ${MAX_TEXTS} inputs per call.`, "input");
    const inputType = body.input_type ?? "search_document";
    if (typeof inputType !== "string" || !COHERE_INPUT_TYPES.includes(inputType)) return refuse(`Cohere's input_type is one of ${COHERE_INPUT_TYPES.join(", ")}.`, "input_type");
    const sent: JsonObject = { model, texts: read.texts, input_type: inputType, embedding_types: ["float"] };
    if (read.dimensions !== null) {
      if (!model.startsWith("embed-v4") || !V4_DIMENSIONS.includes(read.dimensions)) {
        return refuse(`Cohere takes dimensions (256, 512, 1024 or 1536) with Embed v4 only, not ${read.dimensions} with ${model.slice(0, 100)}.`, "dimensions");
      }
      sent.output_dimension = read.dimensions;
    }
    return { body: sent, path: "/v2/embed" };
  },
  response(answer, context) {
    const floats = field(answer.embeddings, "float");
    const vectors = Array.isArray(floats) ? floats.map(numbersOf) : [];
    return embeddingsAnswer(vectors, context, tokenCount(field(field(answer.meta, "billed_units"), "input_tokens")), "Cohere");
  },
};
