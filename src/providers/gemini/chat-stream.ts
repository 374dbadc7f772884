/**
 * A Gemini `streamGenerateContent?alt=sse` stream as OpenAI chat completion chunks (pure but for
 * the clock `created` reads). Every `data:` event is a whole `GenerateContentResponse` holding
 * only the new parts; there is no end marker, the stream ends where its bytes end. Each event
 * becomes at most one chunk (role on a candidate's first, then content, `reasoning_content` and
 * whole tool calls numbered per candidate); at the end come one finish chunk per candidate, the
 * usage chunk (to the log, and to the client when it asked with `stream_options.include_usage`),
 * then `[DONE]`. A grounded candidate's supports (Google Search) become `annotations` over the
 * candidate's text so far, each sent once. A stream that ended before any candidate finished (cut short) ends with an error
 * event instead. A Google error inside the stream becomes the gateway's error event.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import { GatewayError } from "../../errors.ts";
import { clientWantsStreamUsage } from "../openai/chat.ts";
import type { JsonObject } from "../provider.ts";
import { finishReasonOf, modelOf, readParts, usageOf } from "./answer-parts.ts";
import { askedModel, completionId } from "./chat-response.ts";
import { geminiStreamSearches, groundingAnnotations, withSearches } from "./grounding.ts";
import { geminiUpstreamError } from "./upstream-error.ts";
import { isObject, numberOf, objectsOf, parseJson, stringOf } from "./values.ts";

interface CandidateState {
  toolCalls: number;
  finishReason: string | undefined;
  /** The candidate's text so far, which grounding supports index into. */
  text: string;
  /** The annotations already sent, as JSON. */
  annotated: Set<string>;
}

export function geminiChatStream(clientBody: JsonObject): StreamTranslator {
  const wantsUsage = clientWantsStreamUsage(clientBody);
  const created = Math.floor(Date.now() / 1000);
  const asked = askedModel(clientBody);
  let id: string | null = null;
  let model: string | null = null;
  let usage: JsonObject | null = null;
  let blocked = false;
  const candidates = new Map<number, CandidateState>();
  const searchesIn = geminiStreamSearches();
  let searches = 0;

  const chunk = (choices: JsonObject[], extra: JsonObject = {}): string =>
    JSON.stringify({ id: id ?? completionId(undefined), object: "chat.completion.chunk", created, model: model ?? asked, choices, ...extra });

  return {
    event(event: StreamEvent): ClientEvent[] {
      const parsed = parseJson(event.data);
      // Google sometimes wraps an error in a one-element array.
      const answer = Array.isArray(parsed) ? parsed[0] : parsed;
      if (!isObject(answer)) return [];
      if (isObject(answer.error)) {
        const status = numberOf(answer.error.code) ?? 500;
        return [{ event: "error", data: JSON.stringify(geminiUpstreamError(status, event.data).toBody()) }];
      }
      const responseId = stringOf(answer.responseId);
      id ??= completionId(responseId);
      model ??= modelOf(answer) ?? null;
      if (isObject(answer.usageMetadata)) usage = usageOf(answer.usageMetadata);
      searches += searchesIn(event.data).length;
      const list = objectsOf(answer.candidates);
      if (list.length === 0 && isObject(answer.promptFeedback) && stringOf(answer.promptFeedback.blockReason) !== undefined) blocked = true;

      const choices: JsonObject[] = [];
      for (const [position, candidate] of list.entries()) {
        const index = numberOf(candidate.index) ?? position;
        let state = candidates.get(index);
        const delta: JsonObject = {};
        if (!state) {
          state = { toolCalls: 0, finishReason: undefined, text: "", annotated: new Set() };
          candidates.set(index, state);
          delta.role = "assistant";
        }
        const { text, reasoning, toolCalls } = readParts(candidate, responseId, state.toolCalls);
        if (reasoning !== "") delta.reasoning_content = reasoning;
        if (text !== "") delta.content = text;
        state.text += text;
        const annotations = newAnnotations(state, candidate);
        if (annotations.length > 0) delta.annotations = annotations;
        if (toolCalls.length > 0) delta.tool_calls = toolCalls.map((call, offset) => ({ index: state.toolCalls + offset, ...call }));
        state.toolCalls += toolCalls.length;
        state.finishReason = stringOf(candidate.finishReason) ?? state.finishReason;
        if (Object.keys(delta).length > 0) choices.push({ index, delta, logprobs: null, finish_reason: null });
      }
      return choices.length > 0 ? [{ data: chunk(choices) }] : [];
    },

    end(): ClientEvent[] {
      const finished = [...candidates.entries()].filter(([, state]) => state.finishReason !== undefined);
      if (!blocked && finished.length === 0) {
        const error = new GatewayError("upstream_error", "Google Gemini's stream ended before any candidate finished.");
        return [{ event: "error", data: JSON.stringify(error.toBody()) }];
      }
      const events: ClientEvent[] = [];
      if (blocked && candidates.size === 0) {
        events.push({ data: chunk([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: "content_filter" }]) });
      }
      for (const [index, state] of [...candidates.entries()].sort(([a], [b]) => a - b)) {
        events.push({ data: chunk([{ index, delta: {}, logprobs: null, finish_reason: finishReasonOf(state.finishReason, state.toolCalls > 0) }]) });
      }
      if (usage) events.push({ data: chunk([], { usage: withSearches(usage, searches) }), to: wantsUsage ? "both" : "log" });
      events.push({ data: "[DONE]", to: "client" });
      return events;
    },
  };
}

/** The candidate's grounding annotations not sent yet (later events may repeat earlier supports). */
function newAnnotations(state: CandidateState, candidate: JsonObject): JsonObject[] {
  if (!isObject(candidate.groundingMetadata)) return [];
  return groundingAnnotations(candidate, state.text).filter((annotation) => {
    const key = JSON.stringify(annotation);
    if (state.annotated.has(key)) return false;
    state.annotated.add(key);
    return true;
  });
}
