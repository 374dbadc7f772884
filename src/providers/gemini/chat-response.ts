/**
 * A Gemini `GenerateContentResponse` as an OpenAI chat completion (pure). Each candidate is a
 * choice: text parts are its content, thought parts its `reasoning_content`, function calls its
 * `tool_calls`. A prompt Gemini blocked (`promptFeedback.blockReason`, no candidates) is one
 * choice with empty content and finish reason `content_filter`.
 * https://ai.google.dev/api/generate-content#generatecontentresponse
 */
import type { JsonObject } from "../provider.ts";
import { finishReasonOf, modelOf, readParts, usageOf } from "./answer-parts.ts";
import { geminiSearchQueries, withSearches } from "./grounding.ts";
import { isObject, numberOf, objectsOf, stringOf } from "./values.ts";
import { groundingAnnotations } from "./grounding.ts";

/** `clientBody` names the model when Gemini's answer does not (`modelVersion` is optional). */
export function toOpenAiChatCompletion(answer: JsonObject, clientBody: JsonObject = {}): JsonObject {
  const responseId = stringOf(answer.responseId);
  const candidates = objectsOf(answer.candidates);
  const blocked = candidates.length === 0 && isObject(answer.promptFeedback) && stringOf(answer.promptFeedback.blockReason) !== undefined;
  const choices = blocked
    ? [{ index: 0, message: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: "content_filter" }]
    : candidates.map((candidate, position) => toChoice(candidate, position, responseId));
  const completion: JsonObject = {
    id: completionId(responseId),
    object: "chat.completion",
    // Gemini's answer carries no creation time: the gateway's clock at translation stands in.
    created: Math.floor(Date.now() / 1000),
    model: modelOf(answer) ?? askedModel(clientBody),
    choices,
  };
  const usage = withSearches(usageOf(answer.usageMetadata), geminiSearchQueries(answer).length);
  if (usage) completion.usage = usage;
  return completion;
}

/** The model the client asked for, without an `@<provider>/` prefix. */
export function askedModel(clientBody: JsonObject): string {
  return (stringOf(clientBody.model) ?? "").replace(/^@[^/]+\//, "");
}

/** `chatcmpl-<responseId>`, so a completion can be traced to Gemini's answer. */
export function completionId(responseId: string | undefined): string {
  return `chatcmpl-${responseId ?? "gemini"}`;
}

function toChoice(candidate: JsonObject, position: number, responseId: string | undefined): JsonObject {
  const { text, reasoning, toolCalls } = readParts(candidate, responseId);
  const message: JsonObject = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text, refusal: null };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const annotations = groundingAnnotations(candidate, text);
  if (annotations.length > 0) message.annotations = annotations;
  return {
    index: numberOf(candidate.index) ?? position,
    message,
    logprobs: null,
    finish_reason: finishReasonOf(stringOf(candidate.finishReason), toolCalls.length > 0),
  };
}
