/**
 * What a Messages answer's stop reason and usage are in chat completion terms (pure).
 * https://docs.anthropic.com/en/api/messages#response-stop-reason
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
import type { JsonObject } from "../provider.ts";

/** `pause_turn` (a server tool paused a long turn) reads as a stop: the client may continue it. */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

export function finishReason(stopReason: unknown): string {
  return typeof stopReason === "string" ? (FINISH_REASONS[stopReason] ?? "stop") : "stop";
}

/** Anthropic's token counts, as far as an answer or stream has told them. */
export interface AnthropicTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Web searches the answer ran (`server_tool_use.web_search_requests`), billed apart from tokens. */
  searches: number;
}

const count = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null);

/** Updates `tokens` from an Anthropic usage object; counts it lacks are left as they were. */
export function readTokens(tokens: AnthropicTokens, usage: unknown): AnthropicTokens {
  if (typeof usage !== "object" || usage === null) return tokens;
  const raw = usage as JsonObject;
  tokens.input = count(raw.input_tokens) ?? tokens.input;
  tokens.output = count(raw.output_tokens) ?? tokens.output;
  tokens.cacheRead = count(raw.cache_read_input_tokens) ?? tokens.cacheRead;
  tokens.cacheWrite = count(raw.cache_creation_input_tokens) ?? tokens.cacheWrite;
  const serverTools = raw.server_tool_use;
  if (typeof serverTools === "object" && serverTools !== null) tokens.searches = count((serverTools as JsonObject).web_search_requests) ?? tokens.searches;
  return tokens;
}

export const noTokens = (): AnthropicTokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, searches: 0 });

/**
 * The OpenAI usage object: Anthropic's `input_tokens` counts only the uncached part of the
 * prompt, so the prompt is input + cache reads + cache writes; cache reads are `cached_tokens`
 * and cache writes `cache_write_tokens` (both OpenAI names), which the cost prices apart.
 * Searches keep Anthropic's `server_tool_use.web_search_requests`, which the cost prices too.
 */
export function openaiUsage(tokens: AnthropicTokens): JsonObject {
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: tokens.output,
    total_tokens: prompt + tokens.output,
    prompt_tokens_details: { cached_tokens: tokens.cacheRead, cache_write_tokens: tokens.cacheWrite },
    ...(tokens.searches > 0 && { server_tool_use: { web_search_requests: tokens.searches } }),
  };
}
