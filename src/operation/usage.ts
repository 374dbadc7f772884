/**
 * Token usage as the log counts and prices it, read from an answer's `usage` object.
 * https://platform.openai.com/docs/api-reference/chat/object
 */

/** Token usage in the gateway's own terms; every count is a non-negative integer. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the provider's cache (a part of `promptTokens`). */
  cachedTokens: number;
  /** Reasoning tokens (a part of `completionTokens`). */
  reasoningTokens: number;
  /**
   * Prompt tokens written to the provider's cache (a part of `promptTokens`, apart from
   * `cachedTokens`); present only when the answer reports them (Anthropic prices them higher).
   */
  cacheWriteTokens?: number;
  /**
   * Searches the provider ran and charges for apart from tokens (`server_tool_use.web_search_requests`
   * in the usage); present only when the answer reports some.
   */
  webSearches?: number;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The most tokens a count can say: the store's integer columns hold no more, and no real answer comes near. */
export const MAX_TOKEN_COUNT = 2_147_483_647;

/** A non-negative whole count, capped at `MAX_TOKEN_COUNT`; null when `value` is no such number. */
export function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.min(Math.floor(value), MAX_TOKEN_COUNT) : null;
}

/**
 * Reads an OpenAI `usage` object (`prompt_tokens`, `completion_tokens`, `total_tokens`,
 * `prompt_tokens_details.cached_tokens` and `.cache_write_tokens`, `completion_tokens_details.reasoning_tokens`,
 * `server_tool_use.web_search_requests`).
 * Missing parts count 0; a missing total is prompt + completion. DeepSeek's
 * `prompt_cache_hit_tokens` stands in for the cached count when the details lack it.
 * Returns null when `raw` is not an object or has none of the three main counts. Never throws.
 */
export function normaliseUsage(raw: unknown): Usage | null {
  if (!isObject(raw)) return null;
  const prompt = count(raw.prompt_tokens);
  const completion = count(raw.completion_tokens);
  const total = count(raw.total_tokens);
  if (prompt === null && completion === null && total === null) return null;
  const promptDetails = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const usage: Usage = {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    totalTokens: total ?? Math.min((prompt ?? 0) + (completion ?? 0), MAX_TOKEN_COUNT),
    cachedTokens: count(promptDetails.cached_tokens) ?? count(raw.prompt_cache_hit_tokens) ?? 0,
    reasoningTokens: count(completionDetails.reasoning_tokens) ?? 0,
  };
  const cacheWrite = count(promptDetails.cache_write_tokens);
  if (cacheWrite !== null && cacheWrite > 0) usage.cacheWriteTokens = cacheWrite;
  const searches = isObject(raw.server_tool_use) ? count(raw.server_tool_use.web_search_requests) : null;
  if (searches !== null && searches > 0) usage.webSearches = searches;
  return usage;
}


/** Usage with the searches an answer shows, where the usage itself counts none. */
export function withSearches(usage: Usage | null, searches: number): Usage | null {
  return usage && searches > 0 && !usage.webSearches ? { ...usage, webSearches: Math.min(searches, MAX_TOKEN_COUNT) } : usage;
}
