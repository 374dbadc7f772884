/**
 * Bedrock Converse answers → OpenAI chat completions (pure).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
import type { JsonObject } from "../provider.ts";

type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/** Converse's stop reasons as OpenAI's finish reasons; one this table does not know ends as `stop`. */
export function finishReason(stopReason: unknown): FinishReason {
  switch (stopReason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "guardrail_intervened":
    case "content_filtered":
      return "content_filter";
    default:
      return "stop";
  }
}

/** Converse's token usage as OpenAI's: cache reads are cached prompt tokens, and the prompt counts them and cache writes. */
export function openaiUsage(usage: unknown): JsonObject {
  const read = (name: string): number => {
    const value = (usage as JsonObject | null | undefined)?.[name];
    return typeof value === "number" ? value : 0;
  };
  const cached = read("cacheReadInputTokens");
  const prompt = read("inputTokens") + cached + read("cacheWriteInputTokens");
  const completion = read("outputTokens");
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/** A chat completion id for an answer that carries none (Converse answers have no id). */
export function completionId(): string {
  return `chatcmpl-${crypto.randomUUID().replace(/-/g, "")}`;
}

/**
 * A Converse answer as a chat completion. Text blocks join into `content`, tool uses become
 * `tool_calls` (input as JSON text), reasoning text goes to `reasoning_content` (the field
 * OpenAI-compatible servers use for it).
 */
export function chatCompletionFrom(answer: JsonObject, model: string): JsonObject {
  const output = (answer.output ?? {}) as JsonObject;
  const blocks = (((output.message ?? {}) as JsonObject).content ?? []) as JsonObject[];
  let text = "";
  let reasoning = "";
  const toolCalls: JsonObject[] = [];
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (typeof block.text === "string") text += block.text;
    const use = block.toolUse as JsonObject | undefined;
    if (use) {
      toolCalls.push({ id: String(use.toolUseId ?? ""), type: "function", function: { name: String(use.name ?? ""), arguments: JSON.stringify(use.input ?? {}) } });
    }
    const thought = ((block.reasoningContent as JsonObject | undefined)?.reasoningText as JsonObject | undefined)?.text;
    if (typeof thought === "string") reasoning += thought;
  }
  const message: JsonObject = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning) message.reasoning_content = reasoning;
  return {
    id: completionId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer.stopReason) }],
    usage: openaiUsage(answer.usage),
  };
}
