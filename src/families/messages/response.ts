/**
 * An OpenAI chat completion as an Anthropic `message` (pure).
 * https://platform.openai.com/docs/api-reference/chat/object
 * https://docs.anthropic.com/en/api/messages (response)
 */
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, objectField, stringField } from "../json-fields.ts";
import { messageUsage } from "./usage.ts";

/** Anthropic's `stop_reason` for a chat `finish_reason`; null while unknown. */
export function stopReason(finishReason: string | null, refused = false): string | null {
  if (refused) return "refusal";
  switch (finishReason) {
    case "stop":
      return "end_turn";
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return finishReason === null ? null : "end_turn";
  }
}

/** The message of a chat completion's first choice. Never throws. */
export function messageFromChat(completion: JsonObject): JsonObject {
  const choice = arrayField(completion, "choices")[0];
  const message = objectField(choice, "message");
  const content: JsonObject[] = [];
  // DeepSeek-style providers return their reasoning beside the answer.
  const reasoning = stringField(message, "reasoning_content") ?? stringField(message, "reasoning");
  if (reasoning) content.push({ type: "thinking", thinking: reasoning, signature: "" });
  const text = stringField(message, "content");
  if (text) content.push({ type: "text", text });
  const refusal = stringField(message, "refusal");
  if (refusal) content.push({ type: "text", text: refusal });
  for (const call of arrayField(message, "tool_calls")) {
    const fn = objectField(call, "function");
    content.push({ type: "tool_use", id: stringField(call, "id") ?? "", name: stringField(fn, "name") ?? "", input: toolInput(stringField(fn, "arguments")) });
  }
  return {
    id: stringField(completion, "id") ?? "",
    type: "message",
    role: "assistant",
    model: stringField(completion, "model") ?? "",
    content,
    stop_reason: stopReason(stringField(choice, "finish_reason"), refusal !== null && refusal.length > 0),
    stop_sequence: null,
    usage: messageUsage(completion.usage),
  };
}

/**
 * A tool call's arguments as Anthropic's `input` object. Arguments that are not a JSON object
 * (a model's malformed output) become `{}`: Anthropic's clients require an object.
 */
export function toolInput(args: string | null): JsonObject {
  if (!args) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
