/**
 * Chat completion chunks as the Responses API's typed stream events, for providers reached
 * through chat (pure, one per stream): `response.created`, `response.in_progress`, the output
 * items with their text, annotations and function-call argument deltas, a `web_search_call` item
 * for each search the provider reports (as soon as its query is known), then `response.completed` (or
 * `response.incomplete`) carrying the whole response and its usage. Every event has its
 * `sequence_number`.
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../../streams/stream-protocol.ts";
import type { JsonObject } from "../../../providers/provider.ts";
import { echoedSettings, finalStatus, functionCallItem, messageItem, outputText, responsesAnnotations, usageField, webSearchCallItem } from "./response.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

interface TextItem {
  kind: "text";
  id: string;
  outputIndex: number;
  text: string;
  annotations: JsonObject[];
}

interface CallItem {
  kind: "call";
  outputIndex: number;
  callId: string;
  name: string;
  args: string;
}

/**
 * Wraps the provider's chat stream translator: its chunks become Responses events. `searches`
 * reads the queries of the provider's own searches from its events, when the request searches.
 */
export function responsesStreamOf(chat: StreamTranslator, request: JsonObject, searches?: (data: string) => string[]): StreamTranslator {
  const state = new ResponsesStreamState(request);
  const convert = (events: ClientEvent[]): ClientEvent[] => events.flatMap((event) => state.fromChat(event));
  return {
    event: searches
      ? (event: StreamEvent) => {
          state.searched(searches(event.data));
          return [...convert(chat.event(event)), ...state.searchItems()];
        }
      : (event: StreamEvent) => convert(chat.event(event)),
    end: () => [...convert(chat.end?.() ?? []), ...state.finish()],
  };
}

class ResponsesStreamState {
  private sequence = 0;
  private started = false;
  private id = "resp_stream";
  private model: unknown;
  private createdAt = Math.floor(Date.now() / 1000);
  private text: TextItem | null = null;
  private readonly calls = new Map<number, CallItem>();
  private readonly searchCalls: Array<{ outputIndex: number; item: JsonObject }> = [];
  private pendingSearches: string[] = [];
  private nextOutputIndex = 0;
  private finishReason: unknown = null;
  private usage: unknown = null;

  constructor(private readonly request: JsonObject) {
    this.model = request.model;
  }

  fromChat(event: ClientEvent): ClientEvent[] {
    if (event.event === "error") return [event];
    if (event.data === "[DONE]") return [];
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return [];
    }
    if (!isObject(chunk)) return [];
    const out = this.start(chunk);
    out.push(...this.searchItems());
    if (chunk.usage) this.usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : null;
    if (!choice) return out;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = isObject(choice.delta) ? choice.delta : {};
    if (typeof delta.content === "string" && delta.content !== "") out.push(...this.textDelta(delta.content));
    if (Array.isArray(delta.annotations)) out.push(...this.annotationsAdded(delta.annotations));
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) if (isObject(call)) out.push(...this.callDelta(call));
    return out;
  }

  /** Queries the provider has searched for, to be told as `web_search_call` items. */
  searched(queries: string[]): void {
    if (queries.length > 0) this.pendingSearches.push(...queries);
  }

  /** A whole `web_search_call` item's events for each search not told yet. */
  searchItems(): ClientEvent[] {
    if (this.pendingSearches.length === 0) return [];
    const out = this.start({});
    for (const query of this.pendingSearches) {
      const outputIndex = this.nextOutputIndex++;
      const item = webSearchCallItem(`ws_${this.id.replace(/^resp_/, "")}_${this.searchCalls.length}`, query);
      const ids = { output_index: outputIndex, item_id: item.id };
      out.push(this.emit("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress" } }));
      for (const phase of ["in_progress", "searching", "completed"]) out.push(this.emit(`response.web_search_call.${phase}`, ids));
      out.push(this.emit("response.output_item.done", { output_index: outputIndex, item }));
      this.searchCalls.push({ outputIndex, item });
    }
    this.pendingSearches = [];
    return out;
  }

  /** The closing events: every open item done, then the whole response. */
  finish(): ClientEvent[] {
    const out = this.start({});
    out.push(...this.searchItems());
    const items: Array<{ index: number; item: JsonObject }> = this.searchCalls.map(({ outputIndex, item }) => ({ index: outputIndex, item }));
    if (this.text) {
      const { id, outputIndex, text, annotations } = this.text;
      const part = outputText(text, annotations);
      out.push(this.emit("response.output_text.done", { item_id: id, output_index: outputIndex, content_index: 0, text, logprobs: [] }));
      out.push(this.emit("response.content_part.done", { item_id: id, output_index: outputIndex, content_index: 0, part }));
      const item = { ...messageItem(id, text, "completed"), content: [part] };
      out.push(this.emit("response.output_item.done", { output_index: outputIndex, item }));
      items.push({ index: outputIndex, item });
    }
    for (const call of this.calls.values()) {
      const item = functionCallItem(call.callId, call.name, call.args, "completed");
      out.push(this.emit("response.function_call_arguments.done", { item_id: item.id, output_index: call.outputIndex, name: call.name, arguments: call.args }));
      out.push(this.emit("response.output_item.done", { output_index: call.outputIndex, item }));
      items.push({ index: call.outputIndex, item });
    }
    const final = finalStatus(this.finishReason);
    const response = {
      ...this.snapshot(final.status),
      incomplete_details: final.incomplete_details,
      output: items.sort((a, b) => a.index - b.index).map(({ item }) => item),
      ...usageField(this.usage),
    };
    out.push(this.emit(final.status === "completed" ? "response.completed" : "response.incomplete", { response }));
    return out;
  }

  private start(chunk: JsonObject): ClientEvent[] {
    if (this.started) return [];
    this.started = true;
    if (typeof chunk.id === "string") this.id = `resp_${chunk.id}`;
    if (chunk.model !== undefined) this.model = chunk.model;
    if (typeof chunk.created === "number") this.createdAt = chunk.created;
    const response = this.snapshot("in_progress");
    return [this.emit("response.created", { response }), this.emit("response.in_progress", { response })];
  }

  private snapshot(status: string): JsonObject {
    return {
      id: this.id,
      object: "response",
      created_at: this.createdAt,
      status,
      model: this.model,
      error: null,
      incomplete_details: null,
      output: [],
      ...echoedSettings(this.request),
    };
  }

  private textDelta(delta: string): ClientEvent[] {
    const out: ClientEvent[] = [];
    if (!this.text) {
      this.text = { kind: "text", id: `msg_${this.id.replace(/^resp_/, "")}`, outputIndex: this.nextOutputIndex++, text: "", annotations: [] };
      out.push(this.emit("response.output_item.added", { output_index: this.text.outputIndex, item: messageItem(this.text.id, "", "in_progress") }));
      out.push(this.emit("response.content_part.added", { item_id: this.text.id, output_index: this.text.outputIndex, content_index: 0, part: outputText("") }));
    }
    this.text.text += delta;
    out.push(this.emit("response.output_text.delta", { item_id: this.text.id, output_index: this.text.outputIndex, content_index: 0, delta, logprobs: [] }));
    return out;
  }

  /** Chat `url_citation` annotations on the answer's text, each as `response.output_text.annotation.added`. */
  private annotationsAdded(annotations: unknown[]): ClientEvent[] {
    const text = this.text;
    if (!text) return [];
    return responsesAnnotations(annotations).map((annotation) => {
      text.annotations.push(annotation);
      const fields = { item_id: text.id, output_index: text.outputIndex, content_index: 0, annotation_index: text.annotations.length - 1, annotation };
      return this.emit("response.output_text.annotation.added", fields);
    });
  }

  private callDelta(call: JsonObject): ClientEvent[] {
    const index = typeof call.index === "number" ? call.index : 0;
    const fn = isObject(call.function) ? call.function : {};
    const out: ClientEvent[] = [];
    let item = this.calls.get(index);
    if (!item) {
      item = { kind: "call", outputIndex: this.nextOutputIndex++, callId: typeof call.id === "string" ? call.id : `call_${index}`, name: typeof fn.name === "string" ? fn.name : "", args: "" };
      this.calls.set(index, item);
      out.push(this.emit("response.output_item.added", { output_index: item.outputIndex, item: functionCallItem(item.callId, item.name, "", "in_progress") }));
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      item.args += fn.arguments;
      out.push(this.emit("response.function_call_arguments.delta", { item_id: `fc_${item.callId}`, output_index: item.outputIndex, delta: fn.arguments }));
    }
    return out;
  }

  private emit(type: string, fields: JsonObject): ClientEvent {
    return { event: type, data: JSON.stringify({ type, sequence_number: this.sequence++, ...fields }) };
  }
}
