/**
 * ConverseStream events → OpenAI chat completion chunks (pure, one translator per stream).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_ResponseSyntax
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import { clientWantsStreamUsage } from "../openai/chat.ts";
import type { JsonObject } from "../provider.ts";
import { completionId, finishReason, openaiUsage } from "./converse-response.ts";
import { STREAM_ERROR_EVENT } from "./event-stream.ts";
import { bedrockStreamError } from "./upstream-error.ts";

const DONE: ClientEvent = { data: "[DONE]", to: "client" };

/**
 * A translator for one stream. Tool-use blocks become tool calls numbered in the order they
 * start; the finish reason goes out on `messageStop`, the usage (from `metadata`, the last
 * event) in a final chunk without choices, which the client gets only when it asked for it
 * (`stream_options.include_usage`) and the log always gets. An exception event becomes the
 * client's error event.
 */
export function converseStreamTranslator(clientBody: JsonObject, model: string): StreamTranslator {
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const usageTo = clientWantsStreamUsage(clientBody) ? "both" : "log";
  const toolIndexByBlock = new Map<number, number>();
  let roleSent = false;

  const chunk = (delta: JsonObject, finish: string | null = null): ClientEvent => {
    const choice: JsonObject = { index: 0, delta: roleSent ? delta : { role: "assistant", ...delta }, logprobs: null, finish_reason: finish };
    roleSent = true;
    return { data: JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [choice] }) };
  };

  return {
    event(event: StreamEvent): ClientEvent[] {
      if (event.event === STREAM_ERROR_EVENT || event.event?.endsWith("Exception")) {
        return [{ event: "error", data: JSON.stringify(bedrockStreamError(event).toBody()) }];
      }
      const payload = parse(event.data);
      const blockIndex = typeof payload.contentBlockIndex === "number" ? payload.contentBlockIndex : 0;
      switch (event.event) {
        case "messageStart":
          return [chunk({ content: "" })];
        case "contentBlockStart": {
          const use = (payload.start as JsonObject | undefined)?.toolUse as JsonObject | undefined;
          if (!use) return [];
          const index = toolIndexByBlock.size;
          toolIndexByBlock.set(blockIndex, index);
          return [chunk({ tool_calls: [{ index, id: String(use.toolUseId ?? ""), type: "function", function: { name: String(use.name ?? ""), arguments: "" } }] })];
        }
        case "contentBlockDelta":
          return deltaChunks((payload.delta ?? {}) as JsonObject, toolIndexByBlock.get(blockIndex), chunk);
        case "messageStop":
          return [chunk({}, finishReason(payload.stopReason))];
        case "metadata":
          return [{ data: JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: openaiUsage(payload.usage) }), to: usageTo }];
        default:
          return [];
      }
    },
    end: () => [DONE],
  };
}

function deltaChunks(delta: JsonObject, toolIndex: number | undefined, chunk: (delta: JsonObject) => ClientEvent): ClientEvent[] {
  if (typeof delta.text === "string") return [chunk({ content: delta.text })];
  const input = (delta.toolUse as JsonObject | undefined)?.input;
  if (typeof input === "string") {
    // A tool delta before its block started (never seen in Bedrock streams) is numbered as the first call.
    return [chunk({ tool_calls: [{ index: toolIndex ?? 0, function: { arguments: input } }] })];
  }
  const thought = (delta.reasoningContent as JsonObject | undefined)?.text;
  if (typeof thought === "string") return [chunk({ reasoning_content: thought })];
  return [];
}

function parse(data: string): JsonObject {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === "object" ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}
