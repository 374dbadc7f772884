/**
 * Token usage between the two formats. Chat's `prompt_tokens` include cached ones; Anthropic's
 * `input_tokens` do not (cache reads and writes are counted beside them), so a round trip
 * through both keeps every count.
 * https://docs.anthropic.com/en/api/messages#response-usage
 */
import type { Usage } from "../../operation/answer-reader.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { isObject, numberField, objectField } from "../json-fields.ts";

/** An Anthropic `usage` object from a chat completion's `usage`; zeros when there is none. Searches keep `server_tool_use`. */
export function messageUsage(chatUsage: unknown): JsonObject {
  const prompt = numberField(chatUsage, "prompt_tokens") ?? 0;
  const cached = numberField(objectField(chatUsage, "prompt_tokens_details"), "cached_tokens") ?? 0;
  return {
    input_tokens: Math.max(prompt - cached, 0),
    output_tokens: numberField(chatUsage, "completion_tokens") ?? 0,
    // Chat completions do not report cache writes.
    cache_creation_input_tokens: null,
    cache_read_input_tokens: cached,
    ...(isObject(objectField(chatUsage, "server_tool_use")) && { server_tool_use: objectField(chatUsage, "server_tool_use") }),
  };
}

/** The log's usage from an Anthropic `usage` object; null when it has no counts. Never throws. */
export function usageFromMessage(raw: unknown): Usage | null {
  if (!isObject(raw)) return null;
  const input = numberField(raw, "input_tokens");
  const output = numberField(raw, "output_tokens");
  if (input === null && output === null) return null;
  const cacheRead = numberField(raw, "cache_read_input_tokens") ?? 0;
  const promptTokens = (input ?? 0) + cacheRead + (numberField(raw, "cache_creation_input_tokens") ?? 0);
  const completionTokens = output ?? 0;
  const usage: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cachedTokens: cacheRead, reasoningTokens: 0 };
  const searches = numberField(objectField(raw, "server_tool_use"), "web_search_requests");
  if (searches !== null && searches > 0) usage.webSearches = searches;
  return usage;
}
