/**
 * Web search in the gateway's two client formats, for providers that run search themselves
 * (pure). The Responses `web_search_preview` tool becomes chat's `web_search_options`, which
 * each provider's chat transform maps to its own search (Anthropic's web search tool, Gemini's
 * Google Search grounding); their citations come back as chat `url_citation` annotations, and
 * from there as Responses annotations and `web_search_call` items.
 * https://platform.openai.com/docs/guides/tools-web-search
 */
import { GatewayError } from "../errors.ts";
import type { JsonObject } from "./provider.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The Responses tool types that are web search. */
export const WEB_SEARCH_TOOLS: ReadonlySet<unknown> = new Set(["web_search_preview", "web_search_preview_2025_03_11", "web_search"]);

/** Chat's `web_search_options` from a Responses web search tool. */
export function webSearchOptionsOf(tool: JsonObject): JsonObject {
  const options: JsonObject = {};
  if (typeof tool.search_context_size === "string") options.search_context_size = tool.search_context_size;
  if (isObject(tool.user_location)) {
    const { type: _type, ...approximate } = tool.user_location;
    options.user_location = { type: "approximate", approximate };
  }
  return options;
}

/** Where the user is, from `web_search_options.user_location` (`{type, approximate: {…}}`); null when not given. */
export function approximateLocation(options: JsonObject): JsonObject | null {
  const location = isObject(options.user_location) ? options.user_location : null;
  const approximate = location && isObject(location.approximate) ? location.approximate : null;
  if (!approximate) return null;
  const fields: JsonObject = {};
  for (const key of ["city", "region", "country", "timezone"] as const) if (typeof approximate[key] === "string") fields[key] = approximate[key];
  return Object.keys(fields).length > 0 ? fields : null;
}

/** The 400 for a provider with no web search. */
export function noWebSearch(providerName: string, tool: string, param: string): GatewayError {
  return new GatewayError("invalid_request", `The ${tool} tool needs a provider with web search; ${providerName} has none.`, { param });
}

/** A chat `url_citation` annotation. */
export function urlCitation(start: number, end: number, url: string, title: string): JsonObject {
  return { type: "url_citation", url_citation: { start_index: start, end_index: end, url, title } };
}
