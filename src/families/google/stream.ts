/**
 * OpenAI chat completion chunks as a Gemini API `streamGenerateContent?alt=sse` stream (pure, one
 * translator per stream). Every event is a `GenerateContentResponse` holding only the new parts:
 * text and thoughts as they come; a function call whole, once the chat stream finished it
 * (chat streams its arguments in pieces, Gemini sends a call in one part); then one last event
 * with every candidate's `finishReason` and the `usageMetadata` (the request asks the chat
 * stream for its usage). Events are bare `data:` lines with no end marker, as Google's are.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import type { GatewayError } from "../../errors.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { googleErrorBody } from "./errors.ts";
import { arrayField, isObject, numberField, objectField, stringField } from "./json.ts";
import { finishReasonFromChat, functionCallPart, withAnswerFacts } from "./response.ts";

interface CandidateState {
  finishReason: string | null;
  /** Chat's tool calls by their stream index, their arguments gathered. */
  calls: Map<number, { id: string | null; name: string; arguments: string }>;
}

/** A new translator for one stream. */
export function createGeminiStreamTranslator(): StreamTranslator {
  const candidates = new Map<number, CandidateState>();
  /** The latest chunk: its id and model name every event, its usage the last. */
  let facts: JsonObject = {};
  let usage: unknown = null;

  const candidate = (index: number): CandidateState => {
    let state = candidates.get(index);
    if (!state) candidates.set(index, (state = { finishReason: null, calls: new Map() }));
    return state;
  };
  const emit = (list: JsonObject[], last = false): ClientEvent => {
    const response = withAnswerFacts({ candidates: list }, { id: facts.id, model: facts.model, ...(last && { usage }) });
    return { data: JSON.stringify(response) };
  };

  const chunkEvents = (chunk: JsonObject): ClientEvent[] => {
    facts = { id: chunk.id ?? facts.id, model: chunk.model ?? facts.model };
    if (isObject(chunk.usage)) usage = chunk.usage;
    const list: JsonObject[] = [];
    arrayField(chunk, "choices").forEach((choice, position) => {
      const index = numberField(choice, "index") ?? position;
      const state = candidate(index);
      const delta = objectField(choice, "delta");
      const parts: JsonObject[] = [];
      // DeepSeek-style providers stream their reasoning beside the answer.
      const reasoning = stringField(delta, "reasoning_content") ?? stringField(delta, "reasoning");
      if (reasoning) parts.push({ text: reasoning, thought: true });
      const text = `${stringField(delta, "content") ?? ""}${stringField(delta, "refusal") ?? ""}`;
      if (text) parts.push({ text });
      for (const call of arrayField(delta, "tool_calls")) {
        const at = numberField(call, "index") ?? state.calls.size;
        const fn = objectField(call, "function");
        const gathered = state.calls.get(at) ?? { id: null, name: "", arguments: "" };
        gathered.id ??= stringField(call, "id");
        gathered.name += stringField(fn, "name") ?? "";
        gathered.arguments += stringField(fn, "arguments") ?? "";
        state.calls.set(at, gathered);
      }
      state.finishReason = stringField(choice, "finish_reason") ?? state.finishReason;
      if (parts.length > 0) list.push({ content: { role: "model", parts }, index });
    });
    return list.length > 0 ? [emit(list)] : [];
  };

  return {
    event(event: StreamEvent): ClientEvent[] {
      if (event.data === "[DONE]") return [];
      let chunk: unknown;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        return [];
      }
      if (!isObject(chunk)) return [];
      if (event.event === "error" || isObject(chunk.error)) return [upstreamError(chunk)];
      return chunkEvents(chunk);
    },
    end(): ClientEvent[] {
      if (candidates.size === 0) candidate(0);
      const list = [...candidates.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, state]) => {
          const calls = [...state.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => functionCallPart({ id: call.id, function: { name: call.name, arguments: call.arguments } }));
          // Gemini's last event holds a part too, empty when the text came before.
          const parts = calls.length > 0 ? calls : [{ text: "" }];
          return { content: { role: "model", parts }, finishReason: finishReasonFromChat(state.finishReason ?? "stop"), index };
        });
      return [emit(list, true)];
    },
    error(error: GatewayError): ClientEvent[] {
      return [{ data: JSON.stringify(googleErrorBody({ status: error.status, message: error.message })) }];
    },
  };
}

/** An upstream's error event (OpenAI's envelope, which carries no status) as Google's, as an internal error. */
function upstreamError(chunk: JsonObject): ClientEvent {
  const message = stringField(objectField(chunk, "error"), "message") ?? "The upstream reported an error in its stream.";
  return { data: JSON.stringify(googleErrorBody({ status: 500, message })) };
}
