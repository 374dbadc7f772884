/**
 * Chat answers of an OpenAI-format provider that searches on every request and cites by numbered
 * markers (Perplexity's Sonar: `[1]` in the text is the first of the answer's `search_results`,
 * or of its `citations` URLs), given OpenAI's `url_citation` annotations over each marker, plain
 * and streamed (pure). A stream's annotations ride in the `delta` of the chunk whose text ends a
 * marker, once the sources are known, as OpenAI's search models send them; the provider's own
 * fields stay as they are.
 * https://docs.perplexity.ai/api-reference/chat-completions-post
 */
import type { ClientEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import type { JsonObject } from "../provider.ts";
import { urlCitation } from "../web-search.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

interface Source {
  url: string;
  title: string;
}

/** The answer's (or chunk's) sources in citation order; empty when it names none. */
function sourcesOf(answer: JsonObject): Source[] {
  if (Array.isArray(answer.search_results)) {
    return answer.search_results.flatMap((result) => (isObject(result) && typeof result.url === "string" ? [{ url: result.url, title: typeof result.title === "string" ? result.title : result.url }] : []));
  }
  if (Array.isArray(answer.citations)) return answer.citations.flatMap((url) => (typeof url === "string" ? [{ url, title: url }] : []));
  return [];
}

const MARKER = /\[(\d{1,4})\]/g;

/** The markers of `text` from `from` on, as annotations over each marker; markers naming no source are left out. */
function markerAnnotations(text: string, from: number, sources: readonly Source[]): JsonObject[] {
  const annotations: JsonObject[] = [];
  MARKER.lastIndex = from;
  for (let match = MARKER.exec(text); match; match = MARKER.exec(text)) {
    const source = sources[Number(match[1]) - 1];
    if (source) annotations.push(urlCitation(match.index, match.index + match[0].length, source.url, source.title));
  }
  return annotations;
}

/** A whole answer with each choice's markers as `message.annotations` (kept when the provider sent its own). */
export function withCitedSources(answer: JsonObject): JsonObject {
  const sources = sourcesOf(answer);
  if (sources.length === 0 || !Array.isArray(answer.choices)) return answer;
  const choices = answer.choices.map((choice) => {
    const message = isObject(choice) && isObject(choice.message) ? choice.message : null;
    if (!message || typeof message.content !== "string" || (Array.isArray(message.annotations) && message.annotations.length > 0)) return choice;
    const annotations = markerAnnotations(message.content, 0, sources);
    return annotations.length > 0 ? { ...choice, message: { ...message, annotations } } : choice;
  });
  return { ...answer, choices };
}

/** Where a choice's text has been read to: markers before `scanned` have been annotated. */
interface ChoiceText {
  text: string;
  scanned: number;
}

/** The translator's events with each chunk's completed markers as `delta.annotations`. */
export function citingStream(inner: StreamTranslator): StreamTranslator {
  const texts = new Map<number, ChoiceText>();
  let sources: Source[] = [];
  const cite = (event: ClientEvent): ClientEvent => {
    if (event.to === "log" || event.data === "[DONE]") return event;
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return event;
    }
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) return event;
    const named = sourcesOf(chunk);
    if (named.length > 0) sources = named;
    let changed = false;
    const choices = chunk.choices.map((choice) => {
      if (!isObject(choice) || !isObject(choice.delta)) return choice;
      const index = typeof choice.index === "number" ? choice.index : 0;
      const state = texts.get(index) ?? { text: "", scanned: 0 };
      texts.set(index, state);
      if (typeof choice.delta.content === "string") state.text += choice.delta.content;
      if (sources.length === 0) return choice;
      // A marker may be cut between chunks: text from an unclosed `[` waits for the next.
      const open = /\[\d{0,4}$/.exec(state.text);
      const until = open ? open.index : state.text.length;
      const annotations = markerAnnotations(state.text.slice(0, until), state.scanned, sources);
      state.scanned = until;
      if (annotations.length === 0) return choice;
      changed = true;
      return { ...choice, delta: { ...choice.delta, annotations } };
    });
    return changed ? { ...event, data: JSON.stringify({ ...chunk, choices }) } : event;
  };
  return {
    event: (event) => inner.event(event).map(cite),
    ...(inner.end && { end: () => inner.end!() }),
    ...(inner.error && { error: (error) => inner.error!(error) }),
  };
}
