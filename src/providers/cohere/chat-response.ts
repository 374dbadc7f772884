/**
 * A Cohere v2 Chat answer as a chat completion (pure): the text parts joined as `content`, the
 * tool calls as they are, Cohere's finish reasons in OpenAI's names, and the usage from what
 * Cohere bills (`usage.billed_units`, else `usage.tokens`).
 * https://docs.cohere.com/reference/chat
 */
import { GatewayError } from "../../errors.ts";
import type { JsonObject, UnusableAnswer } from "../provider.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
const count = (value: unknown): number => (isCount(value) ? Math.floor(value) : 0);

/** Cohere's `finish_reason` in OpenAI's names. */
export function cohereFinishReason(reason: unknown): string {
  switch (reason) {
    case "MAX_TOKENS":
      return "length";
    case "TOOL_CALL":
      return "tool_calls";
    case "ERROR_TOXIC":
      return "content_filter";
    default:
      return "stop";
  }
}

/** An answer's (or a stream's `message-end`) usage as OpenAI's; null when it reports no count. */
export function cohereUsage(usage: unknown): JsonObject | null {
  if (!isObject(usage)) return null;
  const counted = isObject(usage.billed_units) ? usage.billed_units : isObject(usage.tokens) ? usage.tokens : null;
  // Counts that are not numbers are no report: the log must not read them as a free call.
  if (!counted || (!isCount(counted.input_tokens) && !isCount(counted.output_tokens))) return null;
  const prompt = count(counted.input_tokens);
  const completion = count(counted.output_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The chat completion, or unusable (a 502) when Cohere's 200 holds no `message`: never an empty answer made up. */
export function cohereChatCompletion(answer: JsonObject, model: string): JsonObject | UnusableAnswer {
  if (!isObject(answer.message)) return { unusable: new GatewayError("upstream_error", "Cohere answered with no message; the gateway does not pass it on.") };
  const { message } = answer;
  const content = Array.isArray(message.content)
    ? message.content.map((part) => (isObject(part) && part.type === "text" && typeof part.text === "string" ? part.text : "")).join("")
    : typeof message.content === "string"
      ? message.content
      : "";
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  const out: JsonObject = { role: "assistant", content: content === "" && calls.length > 0 ? null : content, refusal: null };
  if (calls.length > 0) {
    out.tool_calls = calls.map((call) => {
      const fn = isObject(call.function) ? call.function : {};
      return { id: call.id, type: "function", function: { name: fn.name, arguments: typeof fn.arguments === "string" ? fn.arguments : "{}" } };
    });
  }
  const completion: JsonObject = {
    id: typeof answer.id === "string" ? answer.id : "",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: out, logprobs: null, finish_reason: cohereFinishReason(answer.finish_reason) }],
  };
  const usage = cohereUsage(answer.usage);
  if (usage) completion.usage = usage;
  return completion;
}
