/**
 * An OpenAI chat completion as a Gemini API `GenerateContentResponse` (pure). Each choice is a
 * candidate: its reasoning a thought part, its text a text part, its tool calls `functionCall`
 * parts (with the call's id, which a `functionResponse` may name back).
 * https://platform.openai.com/docs/api-reference/chat/object
 * https://ai.google.dev/api/generate-content#generatecontentresponse
 */
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, numberField, objectField, stringField } from "./json.ts";
import { usageMetadataFromChat } from "./usage.ts";

/** Gemini's `finishReason` for a chat `finish_reason`; undefined while unknown. A function call stops with STOP, as Gemini's do. */
export function finishReasonFromChat(finishReason: string | null): string | undefined {
  switch (finishReason) {
    case null:
      return undefined;
    case "stop":
    case "tool_calls":
    case "function_call":
      return "STOP";
    case "length":
      return "MAX_TOKENS";
    case "content_filter":
      return "SAFETY";
    default:
      return "OTHER";
  }
}

/** The response of a chat completion. Never throws. */
export function geminiFromChat(completion: JsonObject): JsonObject {
  const candidates = arrayField(completion, "choices").map((choice, position) => {
    const message = objectField(choice, "message");
    const parts: JsonObject[] = [];
    // DeepSeek-style providers return their reasoning beside the answer.
    const reasoning = stringField(message, "reasoning_content") ?? stringField(message, "reasoning");
    if (reasoning) parts.push({ text: reasoning, thought: true });
    const text = [stringField(message, "content"), stringField(message, "refusal")].filter(Boolean).join("");
    const calls = arrayField(message, "tool_calls").map(functionCallPart);
    if (text !== "" || calls.length === 0) parts.push({ text });
    parts.push(...calls);
    const candidate: JsonObject = { content: { role: "model", parts }, index: numberField(choice, "index") ?? position };
    const finishReason = finishReasonFromChat(stringField(choice, "finish_reason"));
    if (finishReason) candidate.finishReason = finishReason;
    return candidate;
  });
  return withAnswerFacts({ candidates }, completion);
}

/** The answer's usage, model and id, from the completion (or a stream's chunk). */
export function withAnswerFacts(response: JsonObject, completion: unknown): JsonObject {
  const usage = usageMetadataFromChat(objectField(completion, "usage"));
  if (usage) response.usageMetadata = usage;
  const model = stringField(completion, "model");
  if (model) response.modelVersion = model;
  const id = stringField(completion, "id");
  if (id) response.responseId = id;
  return response;
}

/** A chat tool call as a `functionCall` part; arguments that are not a JSON object (a model's malformed output) become `{}`. */
export function functionCallPart(call: unknown): JsonObject {
  const fn = objectField(call, "function");
  const functionCall: JsonObject = { name: stringField(fn, "name") ?? "", args: argsOf(stringField(fn, "arguments")) };
  const id = stringField(call, "id");
  if (id) functionCall.id = id;
  return { functionCall };
}

function argsOf(text: string | null): JsonObject {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
