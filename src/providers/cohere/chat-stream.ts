/**
 * A Cohere v2 Chat stream as chat completion chunks (pure state machine, one per stream).
 * https://docs.cohere.com/docs/streaming
 * https://docs.cohere.com/docs/tool-use-streaming
 *
 * `message-start` opens the answer (role chunk, Cohere's id); `content-delta` text becomes
 * `content`; `tool-call-start` opens a tool call (id, name) at the next tool call index and
 * `tool-call-delta` adds to its `arguments`; `message-end` gives the chunk with `finish_reason`
 * and the usage (`billed_units`), which follows as the usage chunk, to the client when it asked
 * (`stream_options.include_usage`), to the log always, then `[DONE]`; a `message-end` without
 * counts gives no usage chunk, so the log says the answer reported none. Tool plans, citations and
 * the other events carry nothing chat has a place for and are dropped.
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import { clientWantsStreamUsage } from "../openai/chat.ts";
import type { JsonObject } from "../provider.ts";
import { cohereFinishReason, cohereUsage } from "./chat-response.ts";
import { GatewayError } from "../../errors.ts";

const DONE: ClientEvent = { data: "[DONE]", to: "client" };

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** `delta.message.<key>` of an event, where Cohere puts its content and tool calls. */
function messageDelta(event: JsonObject, key: string): JsonObject {
  const delta = isObject(event.delta) ? event.delta : {};
  const message = isObject(delta.message) ? delta.message : {};
  return isObject(message[key]) ? message[key] : {};
}

/** An error event of Cohere's stream: named `error`, or data that is an error object. */
export const isCohereStreamError = (event: StreamEvent): boolean => event.event === "error" || event.data.startsWith('{"error"');

/** An error event of Cohere's stream as the gateway's error, with Cohere's message when it gave one. */
function streamError(data: string): GatewayError {
  let said: unknown;
  try {
    const value: unknown = JSON.parse(data);
    const error = isObject(value) ? (value.error ?? value.message) : undefined;
    said = isObject(error) ? error.message : error;
  } catch {
    said = data.trim();
  }
  const message = typeof said === "string" && said !== "" ? said.slice(0, 500) : "an error";
  return new GatewayError("upstream_error", `Cohere's stream reported ${message === "an error" ? message : `an error: ${message}`}`);
}

export function cohereChatStream(clientBody: JsonObject, context: { model: string }): StreamTranslator {
  const usageTo = clientWantsStreamUsage(clientBody) ? "both" : "log";
  let head = `{"id":"","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${JSON.stringify(context.model)},`;
  // Only what Cohere reported: a stream without it is logged as reporting none, never as free.
  let usage: JsonObject | null = null;
  let toolCalls = 0;

  const chunk = (delta: string, finish: string | null = null): ClientEvent[] => [
    { data: `${head}"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? "null" : `"${finish}"`}}]}` },
  ];

  return {
    event(event: StreamEvent): ClientEvent[] {
      if (isCohereStreamError(event)) return [{ event: "error", data: JSON.stringify(streamError(event.data).toBody()) }];
      let parsed: JsonObject;
      try {
        const value: unknown = JSON.parse(event.data);
        if (!isObject(value)) return [];
        parsed = value;
      } catch {
        return [];
      }
      switch (parsed.type ?? event.event) {
        case "message-start":
          head = `{"id":${JSON.stringify(typeof parsed.id === "string" ? parsed.id : "")},"object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${JSON.stringify(context.model)},`;
          return chunk('{"role":"assistant","content":""}');
        case "content-delta": {
          const text = messageDelta(parsed, "content").text;
          return typeof text === "string" && text !== "" ? chunk(`{"content":${JSON.stringify(text)}}`) : [];
        }
        case "tool-call-start": {
          const call = messageDelta(parsed, "tool_calls");
          const fn = isObject(call.function) ? call.function : {};
          const opened = { index: toolCalls++, id: call.id, type: "function", function: { name: fn.name, arguments: typeof fn.arguments === "string" ? fn.arguments : "" } };
          return chunk(`{"tool_calls":[${JSON.stringify(opened)}]}`);
        }
        case "tool-call-delta": {
          const fn = messageDelta(parsed, "tool_calls").function;
          const args = isObject(fn) ? fn.arguments : undefined;
          if (toolCalls === 0 || typeof args !== "string" || args === "") return [];
          return chunk(`{"tool_calls":[{"index":${toolCalls - 1},"function":{"arguments":${JSON.stringify(args)}}}]}`);
        }
        case "message-end": {
          const delta = isObject(parsed.delta) ? parsed.delta : {};
          usage = cohereUsage(delta.usage) ?? usage;
          return chunk("{}", cohereFinishReason(delta.finish_reason));
        }
        default:
          return [];
      }
    },
    end(): ClientEvent[] {
      return usage ? [{ data: `${head}"choices":[],"usage":${JSON.stringify(usage)}}`, to: usageTo }, DONE] : [DONE];
    },
  };
}
