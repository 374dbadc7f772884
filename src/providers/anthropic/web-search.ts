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
      const annotation = citationAnnotation(citation, start, text.length);
      if (annotation) annotations.push(annotation);
    }
  }
  return { text, annotations, queries };
}

/** A web search citation of the text from `start` to `end` as a `url_citation`; null for any other citation. */
export function citationAnnotation(citation: unknown, start: number, end: number): JsonObject | null {
  if (!isObject(citation) || citation.type !== "web_search_result_location" || typeof citation.url !== "string") return null;
  return urlCitation(start, end, citation.url, typeof citation.title === "string" ? citation.title : citation.url);
}

/** The searches an answer made (its `server_tool_use` blocks), for Responses `web_search_call` items. */
export function anthropicSearchQueries(answer: JsonObject): string[] {
  return citedText(Array.isArray(answer.content) ? answer.content : []).queries;
}

/**
 * A reader of one Messages stream's searches: the query of each `server_tool_use` web search
 * block, once the block has stopped (its input arrives as `input_json_delta` pieces).
 */
export function anthropicStreamSearches(): (data: string) => string[] {
  const inputs = new Map<number, string>();
  return (data) => {
    if (!data.includes('"content_block_')) return [];
    let event: JsonObject;
    try {
      event = JSON.parse(data) as JsonObject;
    } catch {
      return [];
    }
    const index = typeof event.index === "number" ? event.index : -1;
    const block = isObject(event.content_block) ? event.content_block : null;
    if (event.type === "content_block_start" && block?.type === "server_tool_use" && block.name === "web_search") {
      inputs.set(index, isObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "");
    } else if (event.type === "content_block_delta" && inputs.has(index) && isObject(event.delta) && typeof event.delta.partial_json === "string") {
      inputs.set(index, inputs.get(index) + event.delta.partial_json);
    } else if (event.type === "content_block_stop" && inputs.has(index)) {
      const input = inputs.get(index)!;
      inputs.delete(index);
      try {
        const parsed = JSON.parse(input) as unknown;
        if (isObject(parsed) && typeof parsed.query === "string") return [parsed.query];
      } catch {
        return [];
      }
    }
    return [];
  };
}
