/**
 * OpenAI embeddings on Bedrock through InvokeModel (pure), at `/model/{model}/invoke`:
 * - Amazon Titan Text Embeddings (`amazon.titan-embed-text-v2:0`, `-v1`): one text per call
 *   (`inputText`), so a request with several inputs is refused with a 400 rather than fanned out
 *   into several billed calls the log could not tie together; `dimensions` (v2: 256, 512 or 1024)
 *   as `dimensions`. The answer counts the input's tokens (`inputTextTokenCount`).
 * - Cohere Embed (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`): up to 96 `texts`
 *   per call with an `input_type` (the client's Cohere `input_type`, else `search_document`);
 *   their vectors have a fixed size, so `dimensions` is refused. Bedrock's Cohere answer counts
 *   no tokens: the log says the answer reported no usage.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html
 */
import { GatewayError } from "../../errors.ts";
import { embeddingsAnswer, numbersOf, readEmbeddingsRequest, tokenCount } from "../embeddings.ts";
import type { JsonObject, OperationTransforms } from "../provider.ts";
import { COHERE_INPUT_TYPES } from "../cohere/embeddings.ts";

const TITAN_V2_DIMENSIONS = [256, 512, 1024];
const COHERE_MAX_TEXTS = 96;

const isTitan = (model: string): boolean => /(^|\.)amazon\.titan-embed-text-/.test(model);
const isCohere = (model: string): boolean => /(^|\.)cohere\.embed-/.test(model);
const refuse = (message: string, param: string): { error: GatewayError } => ({ error: new GatewayError("invalid_request", message, { param }) });

export const bedrockEmbeddings: OperationTransforms = {
  request(body, { model }) {
    const path = `/model/${encodeURIComponent(model)}/invoke`;
    if (isTitan(model)) {
      const read = readEmbeddingsRequest(body, "AWS Bedrock (Amazon Titan)");
      if ("error" in read) return read;
      if (read.texts.length !== 1) return refuse("AWS Bedrock's Amazon Titan embeddings take one input per call: send one input per request.", "input");
      const v2 = model.includes("titan-embed-text-v2");
      if (read.dimensions !== null && (!v2 || !TITAN_V2_DIMENSIONS.includes(read.dimensions))) {
        return refuse(`AWS Bedrock's ${model.slice(0, 100)} takes dimensions ${v2 ? "256, 512 or 1024" : "of its own size only"}, not ${read.dimensions}.`, "dimensions");
      }
      return { body: { inputText: read.texts[0], ...(read.dimensions === null ? {} : { dimensions: read.dimensions }) }, path };
    }
    if (isCohere(model)) {
      const read = readEmbeddingsRequest(body, "AWS Bedrock (Cohere Embed)", ["input_type"]);
      if ("error" in read) return read;
      if (read.dimensions !== null) return refuse(`AWS Bedrock's ${model.slice(0, 100)} embeds at its own fixed size: leave out dimensions.`, "dimensions");
      if (read.texts.length > COHERE_MAX_TEXTS) return refuse(`AWS Bedrock's Cohere Embed takes at most ${COHERE_MAX_TEXTS} inputs per call.`, "input");
      const inputType = body.input_type ?? "search_document";
      if (typeof inputType !== "string" || !COHERE_INPUT_TYPES.includes(inputType)) return refuse(`Cohere's input_type is one of ${COHERE_INPUT_TYPES.join(", ")}.`, "input_type");
      return { body: { texts: read.texts, input_type: inputType, embedding_types: ["float"] }, path };
    }
    return refuse(`AWS Bedrock embeds through InvokeModel with Amazon Titan Text Embeddings or Cohere Embed models; ${model.slice(0, 100)} is not one.`, "model");
  },
  response(answer, context) {
    if (Array.isArray(answer.embedding)) return embeddingsAnswer([numbersOf(answer.embedding)], context, tokenCount(answer.inputTextTokenCount), "AWS Bedrock");
    // Cohere: a list of vectors, or (with `embedding_types`) one list per type.
    const embeddings = answer.embeddings;
    const lists = Array.isArray(embeddings) ? embeddings : embeddings && typeof embeddings === "object" ? (embeddings as JsonObject).float : undefined;
    return embeddingsAnswer(Array.isArray(lists) ? lists.map(numbersOf) : [], context, null, "AWS Bedrock");
  },
};
