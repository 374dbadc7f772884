/**
 * Anthropic's web search server tool for chat's `web_search_options`, and its citations as chat
 * annotations (pure). `search_context_size` sets how many searches a turn may make.
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
 */
import type { JsonObject } from "../provider.ts";
import { approximateLocation, urlCitation } from "../web-search.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Searches a turn may make, by OpenAI's `search_context_size`. */
const MAX_USES: Readonly<Record<string, number>> = { low: 1, medium: 3, high: 5 };

export function anthropicWebSearchTool(options: JsonObject): JsonObject {
  const tool: JsonObject = { type: "web_search_20250305", name: "web_search", max_uses: MAX_USES[String(options.search_context_size)] ?? MAX_USES.medium };
  const location = approximateLocation(options);
  if (location) tool.user_location = { type: "approximate", ...location };
  return tool;
}

/** The text of an answer's text blocks with each cited block's span as a `url_citation`, and the queries searched. */
export function citedText(content: unknown[]): { text: string | null; annotations: JsonObject[]; queries: string[] } {
  let text: string | null = null;
  const annotations: JsonObject[] = [];
  const queries: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "server_tool_use" && block.name === "web_search" && isObject(block.input) && typeof block.input.query === "string") queries.push(block.input.query);
    if (block.type !== "text" || typeof block.text !== "string") continue;
    const start = (text ?? "").length;
    text = (text ?? "") + block.text;
    for (const citation of Array.isArray(block.citations) ? block.citations : []) {
      if (!isObject(citation) || citation.type !== "web_search_result_location" || typeof citation.url !== "string") continue;
      annotations.push(urlCitation(start, text.length, citation.url, typeof citation.title === "string" ? citation.title : citation.url));
    }
  }
  return { text, annotations, queries };
}

/** The searches an answer made (its `server_tool_use` blocks), for Responses `web_search_call` items. */
export function anthropicSearchQueries(answer: JsonObject): string[] {
  return citedText(Array.isArray(answer.content) ? answer.content : []).queries;
}
