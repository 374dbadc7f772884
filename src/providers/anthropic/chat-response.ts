/**
 * A Messages API answer as a chat completion (pure apart from `created`, which the Messages API
 * does not report: the gateway's clock stands in). Text blocks are joined into `content`,
 * `tool_use` blocks become `tool_calls` (input as JSON text), `thinking` blocks become
 * `reasoning_content` (the field DeepSeek and others use for a model's reasoning; redacted
 * thinking is left out), the stop reason and usage are mapped by `chat-usage.ts`.
 * https://docs.anthropic.com/en/api/messages#response
 * https://platform.openai.com/docs/api-reference/chat/object
 */
import type { JsonObject } from "../provider.ts";
import { finishReason, noTokens, openaiUsage, readTokens } from "./chat-usage.ts";
import { citedText } from "./web-search.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export const chatResponse = (answer: JsonObject): JsonObject => {
  const content = Array.isArray(answer.content) ? answer.content : [];
  // Web search citations mark spans of the joined text.
  const { text, annotations } = citedText(content);
  let reasoning: string | null = null;
  const toolCalls: JsonObject[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "thinking" && typeof block.thinking === "string") reasoning = (reasoning ?? "") + block.thinking;
    else if (block.type === "tool_use") {
      toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const message: JsonObject = { role: "assistant", content: text, refusal: null };
  if (annotations.length > 0) message.annotations = annotations;
  if (reasoning !== null) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: answer.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer.stop_reason) }],
    usage: openaiUsage(readTokens(noTokens(), answer.usage)),
  };
};
