/**
 * The Responses family: what creating, reading, cancelling and compacting model responses share.
 * A response or its stream read for the log, the cache rule, what the semantic cache compares,
 * the text guardrails judge, and where a stream ends (`response.completed` and its kin: the API's
 * streams have no `[DONE]`).
 * Its subfolders: `via-chat/` (the API for a provider with chat and none of its own, as pure
 * transforms), `tool-run/` (the tool loop the gateway drives: MCP tools and fallbacks) and `kept/`
 * (answers kept for such providers). The last two sit in the pipeline layer, so this index, which
 * the log writer and its worker load, never imports them.
 * https://platform.openai.com/docs/api-reference/responses
 */
import type { CacheRule, SemanticSplit } from "../../operation/descriptor.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { jsonAnswers, parseJson, readUsage, stringField, withSearches, type AnswerReader } from "../../operation/answer-reader.ts";
import { nonEmpty, plainText, SEMANTIC_TURN } from "../chat/semantic-split.ts";
import { terminalResponse } from "./text.ts";

export { isResponsesStreamEnd, responsesInputText, responsesOutputText, responsesStreamText, terminalResponse, TERMINAL_RESPONSE_EVENTS } from "./text.ts";

/** A response's `usage`; a stream logged as its final response object, or its events when it was cut before one. */
export const responsesAnswers: AnswerReader = {
  name: "responses",
  usage: readUsage,
  searches: webSearchCalls,
  stream(chunks) {
    const final = terminalResponse(chunks.map((chunk) => parseJson(chunk) ?? chunk));
    if (!final) return jsonAnswers.stream(chunks);
    return { body: final, usage: withSearches(readUsage(final.usage), webSearchCalls(final)), servedModel: stringField(final, "model") };
  },
};

/** The web search calls a response made: its `web_search_call` output items, each billed as one call. */
export function webSearchCalls(response: unknown): number {
  const output = isObject(response) && Array.isArray(response.output) ? response.output : [];
  return output.filter((item) => isObject(item) && item.type === "web_search_call").length;
}

/**
 * An answer about work done earlier (a stored response read back, cancelled, deleted, listed):
 * kept as it is, its tokens not counted, so they are not priced twice.
 */
export const storedAnswers: AnswerReader = {
  name: "stored",
  usage: () => null,
  stream: (chunks) => ({ ...responsesAnswers.stream(chunks), usage: null }),
};

/**
 * The API stores every response unless told not to (`store` defaults to true), runs `background`
 * jobs and appends to a `conversation`: each is a side effect or state a hit would skip or
 * misread. A stored `prompt` without a `version` follows its latest version, which the body does
 * not show.
 */
export const responsesCacheRule: CacheRule = (body) => {
  if (body.store !== false) return "store";
  if (body.background === true) return "background";
  if (body.conversation !== undefined && body.conversation !== null) return "conversation";
  const prompt = body.prompt;
  if (prompt && typeof prompt === "object" && !Array.isArray(prompt) && (prompt as JsonObject).version === undefined) return "prompt";
  return null;
};

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** `input` as a string, or its last item when it is a user message of text. `instructions` stay in `rest`. */
export const responsesSemanticSplit: SemanticSplit = (body) => {
  const { input } = body;
  if (typeof input === "string") return nonEmpty(input) ? { text: input, rest: { ...body, input: SEMANTIC_TURN } } : null;
  if (!Array.isArray(input) || input.length === 0) return null;
  const last = input[input.length - 1];
  if (!isObject(last) || last.role !== "user" || (last.type !== undefined && last.type !== "message")) return null;
  const text = plainText(last.content);
  if (!nonEmpty(text)) return null;
  return { text, rest: { ...body, input: [...input.slice(0, -1), { ...last, content: SEMANTIC_TURN }] } };
};
