/**
 * A chat completion request as a Messages API request (pure).
 * https://docs.anthropic.com/en/api/messages
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 *
 * - `max_completion_tokens`, else `max_tokens`, else `DEFAULT_MAX_TOKENS` → `max_tokens` (required there).
 * - `reasoning_effort` → `thinking: {type:"enabled", budget_tokens}` by `THINKING_BUDGET`; the
 *   budget must stay under `max_tokens`, so without a client cap `max_tokens` is the budget plus
 *   the default, and with one the budget is cut to fit (never under the API's 1,024 minimum).
 * - `stop` → `stop_sequences`; `user` → `metadata.user_id`; tools and `tool_choice` translated,
 *   `parallel_tool_calls: false` → `disable_parallel_tool_use`; `web_search_options` → the web
 *   search server tool (`web-search.ts`).
 * Not translated, and so not sent: `n`, `logprobs`, penalties, `seed`, `response_format`, `audio`.
 */
import type { JsonObject, OperationTransforms } from "../provider.ts";
import { toConversation } from "./chat-messages.ts";
import { anthropicWebSearchTool } from "./web-search.ts";

/** `max_tokens` when the client names no cap: the Messages API requires one. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Thinking budget (tokens) per OpenAI `reasoning_effort`; `none` sends no thinking. */
export const THINKING_BUDGET: Readonly<Record<string, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
  xhigh: 32768,
};

const MIN_THINKING_BUDGET = 1024;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const positiveInteger = (value: unknown): number | null => (typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null);

function tools(value: unknown): JsonObject[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const translated: JsonObject[] = [];
  for (const tool of value) {
    if (!isObject(tool) || !isObject(tool.function)) continue;
    const fn = tool.function;
    const entry: JsonObject = { name: fn.name, input_schema: isObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} } };
    if (typeof fn.description === "string") entry.description = fn.description;
    const cache = tool.cache_control ?? fn.cache_control;
    if (cache !== undefined) entry.cache_control = cache;
    translated.push(entry);
  }
  return translated.length > 0 ? translated : undefined;
}

function toolChoice(choice: unknown, parallel: unknown): JsonObject | undefined {
  let translated: JsonObject | undefined;
  if (choice === "auto") translated = { type: "auto" };
  else if (choice === "none") translated = { type: "none" };
  else if (choice === "required") translated = { type: "any" };
  else if (isObject(choice) && isObject(choice.function)) translated = { type: "tool", name: choice.function.name };
  if (parallel !== false || translated?.type === "none") return translated;
  return { ...(translated ?? { type: "auto" }), disable_parallel_tool_use: true };
}

function stopSequences(stop: unknown): string[] | undefined {
  if (typeof stop === "string") return [stop];
  if (Array.isArray(stop)) return stop.filter((item): item is string => typeof item === "string");
  return undefined;
}

/** `max_tokens` and `thinking` together, since the budget must fit under the cap. */
function limits(body: JsonObject): { max_tokens: number; thinking?: JsonObject } {
  const cap = positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_tokens);
  const budget = typeof body.reasoning_effort === "string" ? THINKING_BUDGET[body.reasoning_effort] : undefined;
  if (budget === undefined) return { max_tokens: cap ?? DEFAULT_MAX_TOKENS };
  if (cap === null) return { max_tokens: budget + DEFAULT_MAX_TOKENS, thinking: { type: "enabled", budget_tokens: budget } };
  return { max_tokens: cap, thinking: { type: "enabled", budget_tokens: Math.max(MIN_THINKING_BUDGET, Math.min(budget, cap - 1)) } };
}

export const chatRequest: NonNullable<OperationTransforms["request"]> = (body, { stream }) => {
  const { system, turns } = toConversation(body.messages);
  const out: JsonObject = { model: body.model, messages: turns, ...limits(body) };
  if (system.length > 0) out.system = system;
  if (typeof body.temperature === "number") out.temperature = body.temperature;
  if (typeof body.top_p === "number") out.top_p = body.top_p;
  const stops = stopSequences(body.stop);
  if (stops && stops.length > 0) out.stop_sequences = stops;
  const functions = tools(body.tools);
  const search = isObject(body.web_search_options) ? [anthropicWebSearchTool(body.web_search_options)] : [];
  const translatedTools = functions || search.length > 0 ? [...(functions ?? []), ...search] : undefined;
  if (translatedTools) {
    out.tools = translatedTools;
    const choice = toolChoice(body.tool_choice, body.parallel_tool_calls);
    if (choice) out.tool_choice = choice;
  }
  if (typeof body.user === "string" && body.user !== "") out.metadata = { user_id: body.user };
  if (stream) out.stream = true;
  return { body: out, path: "/messages" };
};
