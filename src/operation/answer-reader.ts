/**
 * How the log reads an operation's answers: the body to keep, the token usage (`Usage`, as the
 * log counts and prices it), the served model, and, for answers not priced by tokens, their
 * cost. An operation names its reader in its
 * descriptor (`OperationDescriptor.answers`); the readers several operations share live in their
 * family module (`families/`). A log entry carries its reader's `name` to the log writer, which
 * may run on another thread and finds the reader by that name among the families it imports.
 * https://platform.openai.com/docs/api-reference/chat/object
 * https://platform.openai.com/docs/api-reference/responses/object
 */

/** A stream read for the log. */
export interface StreamRead {
  /** The value logged as the body, serialised and cut to the limit by the caller. */
  body: unknown;
  usage: Usage | null;
  servedModel: string | null;
}

/** What an answer priced by its content (not by tokens) is read from: the logged request and answer. */
export interface PricedAnswer {
  provider: string | null;
  model: string | null;
  /** The logged request body. */
  requestBody: string | null;
  /** The logged answer body (JSON, a stream's events as a JSON array, or a binary answer's metadata). */
  answerBody: string | null;
  succeeded: boolean;
}

/** One family's way of reading answers. Every function is pure and never throws. */
export interface AnswerReader {
  /** Unique among readers: what a log entry carries to name it. */
  readonly name: string;
  /** A JSON answer's `usage` in the gateway's terms; null when the answer's tokens are not counted (work done earlier). */
  usage(raw: unknown): Usage | null;
  /** Where a JSON answer holds what `usage` reads, and the served model's name; absent: `usage` and `model`. */
  fields?: { usage: string; model: string };
  /**
   * The searches a whole JSON answer shows that its `usage` does not count (a Responses answer's
   * `web_search_call` items: OpenAI bills each call but reports no count); absent: none.
   */
  searches?(answer: unknown): number;
  /** A stream's event data, in order. */
  stream(chunks: readonly string[]): StreamRead;
  /** The answer's cost in USD when it is priced by what it holds (images, seconds of audio); null when it cannot be known. */
  cost?(answer: PricedAnswer): number | null;
}

/**
 * Any JSON operation without a family of its own (embeddings, lists, files, the pass-through):
 * `usage` in the chat or Responses names, a stream kept as the array of its events.
 */
export const jsonAnswers: AnswerReader = {
  name: "json",
  usage: readUsage,
  stream(chunks) {
    const events = chunks.map((chunk) => parseJson(chunk) ?? chunk);
    let usage: Usage | null = null;
    let servedModel: string | null = null;
    for (const event of events) {
      usage = readUsage(field(event, "usage")) ?? readUsage(field(field(event, "response"), "usage")) ?? usage;
      servedModel ??= stringField(event, "model") ?? stringField(field(event, "response"), "model");
    }
    return { body: events, usage, servedModel };
  },
};

/** A `usage` object in the chat or embeddings names, or the Responses API's `input_tokens`/`output_tokens`. */
export function readUsage(raw: unknown): Usage | null {
  if (field(raw, "prompt_tokens") !== undefined || field(raw, "input_tokens") === undefined) return normaliseUsage(raw);
  return normaliseUsage({
    prompt_tokens: field(raw, "input_tokens"),
    completion_tokens: field(raw, "output_tokens"),
    total_tokens: field(raw, "total_tokens"),
    prompt_tokens_details: field(raw, "input_tokens_details"),
    completion_tokens_details: field(raw, "output_tokens_details"),
    server_tool_use: field(raw, "server_tool_use"),
  });
}

/** The JSON value of a text, or null when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** A non-empty string field, or null. */
export function stringField(value: unknown, key: string): string | null {
  const found = field(value, key);
  return typeof found === "string" && found.length > 0 ? found : null;
}

/** `text` parsed, when it is a JSON object; null otherwise. Never throws. */
export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

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

