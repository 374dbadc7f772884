/**
 * The Google family: the Gemini API's format in, any provider out (`POST
 * /v1beta/models/{model}:generateContent`, `:streamGenerateContent`, `:embedContent`,
 * `:batchEmbedContents`). Requests are translated to chat completions or embeddings, served by
 * every provider's transforms, and their answers translated back; the log reads the answer the
 * client got. The transforms here are pure.
 * https://ai.google.dev/api
 */
import type { AnswerTranslation } from "../../operation/descriptor.ts";
import { jsonAnswers, parseJson, stringField, type AnswerReader } from "../../operation/answer-reader.ts";
import { assembleGeminiResponse, geminiResponseText } from "./assemble.ts";
import { batchEmbedContentsFromEmbeddings, embedContentFromEmbeddings } from "./embeddings.ts";
import { geminiFromChat } from "./response.ts";
import { createGeminiStreamTranslator } from "./stream.ts";
import { usageFromMetadata } from "./usage.ts";
import { chatSemanticSplit, inputText } from "../chat/index.ts";

export { chatRequestFromGemini } from "./request.ts";
export { embeddingsInputText, embeddingsRequestFromBatch, embeddingsRequestFromEmbedContent } from "./embeddings.ts";
export { gatewayEnvelopeFacts, googleErrorBody } from "./errors.ts";
export { geminiResponseText } from "./assemble.ts";

/** Chat completion answers (JSON and streams) as Gemini's. */
export const geminiFromChatTranslation: AnswerTranslation = {
  via: "createChatCompletion",
  response: geminiFromChat,
  stream: () => createGeminiStreamTranslator(),
};

/** An embeddings answer as `embedContent`'s. */
export const embedContentTranslation: AnswerTranslation = { via: "createEmbedding", response: embedContentFromEmbeddings };

/** An embeddings answer as `batchEmbedContents`'s. */
export const batchEmbedContentsTranslation: AnswerTranslation = { via: "createEmbedding", response: batchEmbedContentsFromEmbeddings };

/** An answer's usage from its `usageMetadata`, its model from `modelVersion`; a stream assembled into the response the non-streamed call returns. */
export const geminiAnswers: AnswerReader = {
  name: "gemini",
  fields: { usage: "usageMetadata", model: "modelVersion" },
  usage: usageFromMetadata,
  stream(chunks) {
    const response = assembleGeminiResponse(chunks.map(parseJson));
    if (!response) return jsonAnswers.stream(chunks);
    return { body: response, usage: usageFromMetadata(response.usageMetadata), servedModel: stringField(response, "modelVersion") };
  },
};

/** The semantic cache compares the last user turn of the chat translation, the body the core holds. */
export const geminiSemanticSplit = chatSemanticSplit;

/** Input guardrails judge the chat translation's text, the body the core holds. */
export const geminiInputText = inputText;

/** The answer text of a streamed response, from its events' data. */
export function geminiStreamText(chunks: readonly string[]): string {
  return geminiResponseText(assembleGeminiResponse(chunks.map(parseJson)));
}
