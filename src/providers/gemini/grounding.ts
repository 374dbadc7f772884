/**
 * Google Search grounding for chat's `web_search_options`, and a grounded answer's sources as
 * chat `url_citation` annotations (pure). Gemini marks each supported segment of the answer by
 * byte offsets into its text; OpenAI's indices count characters, so offsets are converted.
 * https://ai.google.dev/gemini-api/docs/google-search
 */
import type { JsonObject } from "../provider.ts";
import { urlCitation } from "../web-search.ts";
import { isObject, numberOf, objectsOf, parseJson, stringOf } from "./values.ts";

/** The Gemini tool that grounds answers on Google Search. */
export const GOOGLE_SEARCH_TOOL: JsonObject = { google_search: {} };

/** The candidate's grounding supports as annotations over `text` (the candidate's joined text). */
export function groundingAnnotations(candidate: JsonObject, text: string): JsonObject[] {
  const metadata = isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : null;
  if (!metadata) return [];
  const chunks = objectsOf(metadata.groundingChunks).map((chunk) => (isObject(chunk.web) ? chunk.web : null));
  const bytes = Buffer.from(text, "utf8");
  const charAt = (byteOffset: number): number => bytes.subarray(0, Math.max(0, Math.min(byteOffset, bytes.length))).toString("utf8").length;
  const annotations: JsonObject[] = [];
  for (const support of objectsOf(metadata.groundingSupports)) {
    const segment = isObject(support.segment) ? support.segment : {};
    const start = charAt(numberOf(segment.startIndex) ?? 0);
    const end = charAt(numberOf(segment.endIndex) ?? 0);
    for (const index of Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : []) {
      const web = typeof index === "number" ? chunks[index] : null;
      const url = web ? stringOf(web.uri) : undefined;
      if (!web || !url) continue;
      annotations.push(urlCitation(start, end, url, stringOf(web.title) ?? url));
    }
  }
  return annotations;
}

/** The searches a grounded answer made (its first candidate's `webSearchQueries`). */
export function geminiSearchQueries(answer: JsonObject): string[] {
  const candidate = objectsOf(answer.candidates)[0];
  const metadata = candidate && isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : null;
  return metadata && Array.isArray(metadata.webSearchQueries) ? metadata.webSearchQueries.filter((query): query is string => typeof query === "string") : [];
}

/** Usage with the searches a grounded answer ran, which the cost prices apart from tokens. */
export function withSearches(usage: JsonObject | null, searches: number): JsonObject | null {
  return usage && searches > 0 ? { ...usage, server_tool_use: { web_search_requests: searches } } : usage;
}

/** A reader of one stream's searches: each query the stream's grounding metadata names, once. */
export function geminiStreamSearches(): (data: string) => string[] {
  const seen = new Set<string>();
  return (data) => {
    if (!data.includes("webSearchQueries")) return [];
    const parsed = parseJson(data);
    const answer = Array.isArray(parsed) ? parsed[0] : parsed;
    if (!isObject(answer)) return [];
    return geminiSearchQueries(answer).filter((query) => !seen.has(query) && seen.add(query));
  };
}
