/**
 * A Messages API stream as chat completion chunks (pure state machine, one per stream).
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * https://platform.openai.com/docs/api-reference/chat-streaming
 *
 * `message_start` opens the answer (role chunk); text, `input_json_delta` and `thinking_delta`
 * deltas become `content`, tool call `arguments` and `reasoning_content` deltas (a tool call's
 * first chunk carries its id and name, at the index of the tool call among the answer's tool
 * calls, not of the content block); `message_delta` gives the chunk with `finish_reason`;
 * `ping` and signature deltas are dropped. A text block's web search citations (`citations_delta`)
 * become one chunk of `annotations` when the block stops, spanning the block's text. At `message_stop` the usage
 * chunk follows, to the client when it asked (`stream_options.include_usage`), to the log
 * always, then `[DONE]`. An `error` event becomes the gateway's `event: error` with the envelope.
 * Chunks are written as text around a prefix built once, since this runs per token.
 */
import { GatewayError } from "../../errors.ts";
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import { clientWantsStreamUsage } from "../openai/chat.ts";
import type { JsonObject } from "../provider.ts";
import { finishReason, noTokens, openaiUsage, readTokens } from "./chat-usage.ts";
import { anthropicError } from "./upstream-error.ts";
import { citationAnnotation } from "./web-search.ts";

const DONE: ClientEvent = { data: "[DONE]", to: "client" };

interface AnthropicEvent {
  type?: string;
  message?: { id?: unknown; model?: unknown; usage?: unknown };
  index?: number;
  content_block?: { type?: string; id?: unknown; name?: unknown; text?: unknown; thinking?: unknown };
  delta?: { type?: string; text?: unknown; partial_json?: unknown; thinking?: unknown; stop_reason?: unknown; citation?: unknown };
  usage?: unknown;
}

export function chatStream(clientBody: JsonObject): StreamTranslator {
  const usageTo = clientWantsStreamUsage(clientBody) ? "both" : "log";
  const tokens = noTokens();
  /** `{"id":…,"object":…,"created":…,"model":…,` shared by every chunk; `message_start` names them. */
  let head = '{"id":"","object":"chat.completion.chunk","created":0,"model":"",';
  /** The tool call index of each content block that is a tool call (by block index). */
  const toolSlots = new Map<number, number>();
  /** Characters of answer text so far, where annotations start and end. */
  let textLength = 0;
  /** Each open text block's first character and the citations it has had (by block index). */
  const textBlocks = new Map<number, { start: number; citations: unknown[] }>();

  const chunk = (delta: string, finish: string | null = null): ClientEvent[] => [
    { data: `${head}"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? "null" : `"${finish}"`}}]}` },
  ];
  const text = (field: string, value: unknown): ClientEvent[] =>
    typeof value === "string" && value !== "" ? chunk(`{"${field}":${JSON.stringify(value)}}`) : [];
  const answerText = (value: unknown): ClientEvent[] => {
    if (typeof value === "string") textLength += value.length;
    return text("content", value);
  };

  const start = (message: AnthropicEvent["message"]): ClientEvent[] => {
    const id = typeof message?.id === "string" ? message.id : "";
    const model = typeof message?.model === "string" ? message.model : "";
    head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${JSON.stringify(model)},`;
    readTokens(tokens, message?.usage);
    return chunk('{"role":"assistant","content":""}');
  };

  const blockStart = (index: number, block: NonNullable<AnthropicEvent["content_block"]>): ClientEvent[] => {
    if (block.type === "text") {
      textBlocks.set(index, { start: textLength, citations: [] });
      return answerText(block.text);
    }
    if (block.type === "thinking") return text("reasoning_content", block.thinking);
    if (block.type !== "tool_use") return [];
    const slot = toolSlots.size;
    toolSlots.set(index, slot);
    const call = { index: slot, id: block.id, type: "function", function: { name: block.name, arguments: "" } };
    return chunk(`{"tool_calls":[${JSON.stringify(call)}]}`);
  };

  const blockDelta = (index: number, delta: NonNullable<AnthropicEvent["delta"]>): ClientEvent[] => {
    switch (delta.type) {
      case "text_delta":
        return answerText(delta.text);
      case "citations_delta":
        textBlocks.get(index)?.citations.push(delta.citation);
        return [];
      case "thinking_delta":
        return text("reasoning_content", delta.thinking);
      case "input_json_delta": {
        const slot = toolSlots.get(index);
        if (slot === undefined || typeof delta.partial_json !== "string" || delta.partial_json === "") return [];
        return chunk(`{"tool_calls":[{"index":${slot},"function":{"arguments":${JSON.stringify(delta.partial_json)}}}]}`);
      }
      default:
        return [];
    }
  };

  const blockStop = (index: number): ClientEvent[] => {
    const block = textBlocks.get(index);
    textBlocks.delete(index);
    const annotations = (block?.citations ?? []).flatMap((citation) => citationAnnotation(citation, block!.start, textLength) ?? []);
    return annotations.length > 0 ? chunk(`{"annotations":${JSON.stringify(annotations)}}`) : [];
  };

  return {
    event(event: StreamEvent): ClientEvent[] {
      if (event.event === "ping") return [];
      if (event.event === "error") return [streamError(event.data)];
      let parsed: AnthropicEvent;
      try {
        parsed = JSON.parse(event.data) as AnthropicEvent;
      } catch {
        return [];
      }
      const index = typeof parsed.index === "number" ? parsed.index : -1;
      switch (parsed.type) {
        case "message_start":
          return start(parsed.message);
        case "content_block_start":
          return parsed.content_block ? blockStart(index, parsed.content_block) : [];
        case "content_block_delta":
          return parsed.delta ? blockDelta(index, parsed.delta) : [];
        case "content_block_stop":
          return blockStop(index);
        case "message_delta":
          readTokens(tokens, parsed.usage);
          return chunk("{}", finishReason(parsed.delta?.stop_reason));
        default:
          return [];
      }
    },
    end(): ClientEvent[] {
      return [{ data: `${head}"choices":[],"usage":${JSON.stringify(openaiUsage(tokens))}}`, to: usageTo }, DONE];
    },
  };
}

/** An `error` event as the gateway's own stream error: `event: error` and the envelope. */
function streamError(data: string): ClientEvent {
  const error = anthropicError(502, data) ?? new GatewayError("upstream_error", "Anthropic's stream reported an error.");
  return { event: "error", data: JSON.stringify(error.toBody()) };
}
