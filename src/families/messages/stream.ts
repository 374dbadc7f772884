/**
 * OpenAI chat completion chunks as Anthropic Messages stream events (pure, one translator per
 * stream): `message_start`, then per content block `content_block_start`, its deltas
 * (`text_delta`, `thinking_delta`, `input_json_delta`) and `content_block_stop`, then
 * `message_delta` (stop reason, usage) and `message_stop` once the chat stream ended cleanly.
 * The usage comes from the chat stream's last chunk (the request asks for it), so
 * `message_start` reports zero tokens and `message_delta` the counts, as Anthropic allows.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * https://platform.openai.com/docs/api-reference/chat-streaming
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import type { GatewayError } from "../../errors.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { anthropicErrorBody } from "./errors.ts";
import { arrayField, isObject, objectField, stringField } from "../json-fields.ts";
import { stopReason } from "./response.ts";
import { messageUsage } from "./usage.ts";

type OpenBlock = { kind: "text" | "thinking"; index: number } | { kind: "tool"; index: number; call: number };

/** A new translator for one stream. */
export function createMessagesStreamTranslator(): StreamTranslator {
  let started = false;
  let nextIndex = 0;
  let open: OpenBlock | null = null;
  let finishReason: string | null = null;
  let refused = false;
  let usage: unknown = null;
  /** Chat's tool call index → the Anthropic block index it streams into. */
  const toolBlocks = new Map<number, number>();

  const emit = (type: string, fields: JsonObject): ClientEvent => ({ event: type, data: JSON.stringify({ type, ...fields }) });

  const start = (chunk: unknown): ClientEvent[] => {
    if (started) return [];
    started = true;
    const message = { id: stringField(chunk, "id") ?? "", type: "message", role: "assistant", model: stringField(chunk, "model") ?? "", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
    return [emit("message_start", { message })];
  };
  const close = (): ClientEvent[] => {
    if (!open) return [];
    const { index } = open;
    open = null;
    return [emit("content_block_stop", { index })];
  };
  const openBlock = (block: OpenBlock, contentBlock: JsonObject): ClientEvent[] => {
    const events = close();
    open = block;
    return [...events, emit("content_block_start", { index: block.index, content_block: contentBlock })];
  };
  /** A delta of text or thinking, opening its block when another kind is open. */
  const textual = (kind: "text" | "thinking", text: string): ClientEvent[] => {
    const events = open?.kind === kind ? [] : openBlock({ kind, index: nextIndex++ }, kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" });
    const delta = kind === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text };
    return [...events, emit("content_block_delta", { index: open!.index, delta })];
  };
  const toolCall = (call: unknown): ClientEvent[] => {
    const callIndex = typeof (call as JsonObject).index === "number" ? ((call as JsonObject).index as number) : 0;
    const fn = objectField(call, "function");
    const events: ClientEvent[] = [];
    let blockIndex = toolBlocks.get(callIndex);
    if (blockIndex === undefined) {
      blockIndex = nextIndex++;
      toolBlocks.set(callIndex, blockIndex);
      events.push(...openBlock({ kind: "tool", index: blockIndex, call: callIndex }, { type: "tool_use", id: stringField(call, "id") ?? "", name: stringField(fn, "name") ?? "", input: {} }));
    }
    const args = stringField(fn, "arguments");
    if (args) events.push(emit("content_block_delta", { index: blockIndex, delta: { type: "input_json_delta", partial_json: args } }));
    return events;
  };

  const chunkEvents = (chunk: JsonObject): ClientEvent[] => {
    if (isObject(chunk.usage)) usage = chunk.usage;
    const choice = arrayField(chunk, "choices")[0];
    if (!isObject(choice)) return started ? [] : start(chunk);
    const events = start(chunk);
    const delta = objectField(choice, "delta");
    const reasoning = stringField(delta, "reasoning_content") ?? stringField(delta, "reasoning");
    if (reasoning) events.push(...textual("thinking", reasoning));
    const text = stringField(delta, "content");
    if (text) events.push(...textual("text", text));
    const refusal = stringField(delta, "refusal");
    if (refusal) {
      refused = true;
      events.push(...textual("text", refusal));
    }
    for (const call of arrayField(delta, "tool_calls")) events.push(...toolCall(call));
    const finish = stringField(choice, "finish_reason");
    if (finish) {
      finishReason = finish;
      events.push(...close());
    }
    return events;
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
      const events = [...start(null), ...close()];
      const { input_tokens, output_tokens, cache_read_input_tokens } = messageUsage(usage);
      const delta = { stop_reason: stopReason(finishReason, refused) ?? "end_turn", stop_sequence: null };
      events.push(emit("message_delta", { delta, usage: { input_tokens, output_tokens, cache_read_input_tokens } }));
      events.push(emit("message_stop", {}));
      return events;
    },
    error(error: GatewayError): ClientEvent[] {
      return [{ event: "error", data: JSON.stringify(anthropicErrorBody({ status: error.status, message: error.message })) }];
    },
  };
}

/** An upstream's error event (OpenAI's envelope) as Anthropic's. */
function upstreamError(chunk: JsonObject): ClientEvent {
  const message = stringField(objectField(chunk, "error"), "message") ?? "The upstream reported an error in its stream.";
  return { event: "error", data: JSON.stringify({ type: "error", error: { type: "api_error", message } }) };
}
