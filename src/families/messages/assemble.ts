/**
 * Anthropic Messages stream events assembled into the `message` they describe, as the official
 * SDK's `MessageStream` does: the log keeps a stream as its message, and output guardrails
 * judge its text. Never throws; events of other shapes are ignored.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, numberField, objectField, stringField } from "../json-fields.ts";
import { toolInput } from "./response.ts";

/** The message of a stream's events (their parsed data, in order); null before `message_start`. */
export function assembleMessage(events: readonly unknown[]): JsonObject | null {
  let message: JsonObject | null = null;
  const content: JsonObject[] = [];
  const partialJson = new Map<number, string>();
  for (const event of events) {
    const type = stringField(event, "type");
    if (type === "message_start") {
      message = { ...(objectField(event, "message") ?? {}) };
      message.usage = { ...(objectField(message, "usage") ?? {}) };
      continue;
    }
    if (!message) continue;
    const index = numberField(event, "index") ?? -1;
    if (type === "content_block_start") {
      content[index] = { ...(objectField(event, "content_block") ?? {}) };
    } else if (type === "content_block_delta" && content[index]) {
      addDelta(content[index], objectField(event, "delta"), index, partialJson);
    } else if (type === "content_block_stop" && content[index]?.type === "tool_use" && partialJson.has(index)) {
      content[index].input = toolInput(partialJson.get(index) ?? "");
    } else if (type === "message_delta") {
      Object.assign(message, objectField(event, "delta") ?? {});
      // Counters in `message_delta` are cumulative: they replace, never add.
      Object.assign(message.usage as JsonObject, objectField(event, "usage") ?? {});
    }
  }
  if (message) message.content = content.filter(isObject);
  return message;
}

function addDelta(block: JsonObject, delta: JsonObject | null, index: number, partialJson: Map<number, string>): void {
  switch (stringField(delta, "type")) {
    case "text_delta":
      block.text = `${stringField(block, "text") ?? ""}${stringField(delta, "text") ?? ""}`;
      break;
    case "thinking_delta":
      block.thinking = `${stringField(block, "thinking") ?? ""}${stringField(delta, "thinking") ?? ""}`;
      break;
    case "signature_delta":
      block.signature = stringField(delta, "signature") ?? "";
      break;
    case "input_json_delta":
      partialJson.set(index, `${partialJson.get(index) ?? ""}${stringField(delta, "partial_json") ?? ""}`);
      break;
  }
}

/** A message's text: its text blocks, in order (what output guardrails judge). */
export function messageText(message: unknown): string {
  return arrayField(message, "content")
    .filter((block) => stringField(block, "type") === "text")
    .map((block) => stringField(block, "text") ?? "")
    .join("\n");
}
