/**
 * A tool run's progress as the Responses API's typed stream events, in the order OpenAI's hosted
 * MCP sends them: the response created, each output item added, its own progress events
 * (`response.mcp_list_tools.*`, `response.mcp_call.*`, text and argument deltas), the item done,
 * and the response completed (or failed). Every event has its `sequence_number`. The plain
 * answer uses the same driver with no events.
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { JsonObject } from "../../../providers/provider.ts";
import { isObject } from "./tool-items.ts";

/** What the driver tells as the run goes; a plain answer listens to none of it. */
export interface RunProgress {
  started(response: JsonObject): void;
  /** An item begins (an MCP call about to run): its in-progress form. */
  itemStarted(index: number, item: JsonObject): void;
  /** An item is final. */
  itemDone(index: number, item: JsonObject): void;
  finished(response: JsonObject): void;
  failed(response: JsonObject): void;
}

export const SILENT: RunProgress = { started() {}, itemStarted() {}, itemDone() {}, finished() {}, failed() {} };

/** Writes the events as server-sent event text to `write`. */
export function streamedProgress(write: (text: string) => void): RunProgress {
  let sequence = 0;
  const opened = new Set<number>();
  const emit = (type: string, fields: JsonObject): void => {
    write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  };
  const added = (index: number, item: JsonObject): void => {
    opened.add(index);
    emit("response.output_item.added", { output_index: index, item });
  };
  return {
    started(response) {
      emit("response.created", { response });
      emit("response.in_progress", { response });
    },
    itemStarted(index, item) {
      added(index, item);
      if (item.type === "mcp_call") {
        emit("response.mcp_call.in_progress", { item_id: item.id, output_index: index });
        emit("response.mcp_call_arguments.delta", { item_id: item.id, output_index: index, delta: item.arguments });
        emit("response.mcp_call_arguments.done", { item_id: item.id, output_index: index, arguments: item.arguments });
      } else if (item.type === "mcp_list_tools") {
        emit("response.mcp_list_tools.in_progress", { item_id: item.id, output_index: index });
      }
    },
    itemDone(index, item) {
      if (!opened.has(index)) added(index, inProgressForm(item));
      const id = item.id;
      if (item.type === "mcp_call") emit(item.error ? "response.mcp_call.failed" : "response.mcp_call.completed", { item_id: id, output_index: index });
      else if (item.type === "mcp_list_tools") emit(item.error ? "response.mcp_list_tools.failed" : "response.mcp_list_tools.completed", { item_id: id, output_index: index });
      else if (item.type === "message") emitMessage(emit, index, item);
      else if (item.type === "function_call") {
        emit("response.function_call_arguments.delta", { item_id: id, output_index: index, delta: item.arguments });
        emit("response.function_call_arguments.done", { item_id: id, output_index: index, name: item.name, arguments: item.arguments });
      }
      emit("response.output_item.done", { output_index: index, item });
    },
    finished(response) {
      emit(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
    },
    failed(response) {
      emit("response.failed", { response });
    },
  };
}

function inProgressForm(item: JsonObject): JsonObject {
  if (item.type === "message") return { ...item, status: "in_progress", content: [] };
  if (item.type === "mcp_list_tools") return { ...item, tools: [] };
  if (item.type === "function_call") return { ...item, status: "in_progress", arguments: "" };
  return item;
}

/** A message's parts: each text part added, its text in one delta, done. */
function emitMessage(emit: (type: string, fields: JsonObject) => void, index: number, item: JsonObject): void {
  const parts = Array.isArray(item.content) ? item.content : [];
  parts.forEach((part, contentIndex) => {
    if (!isObject(part)) return;
    const base = { item_id: item.id, output_index: index, content_index: contentIndex };
    const empty = part.type === "output_text" ? { ...part, text: "", annotations: [] } : part;
    emit("response.content_part.added", { ...base, part: empty });
    if (part.type === "output_text" && typeof part.text === "string") {
      emit("response.output_text.delta", { ...base, delta: part.text, logprobs: [] });
      const annotations = Array.isArray(part.annotations) ? part.annotations : [];
      annotations.forEach((annotation, annotationIndex) => {
        emit("response.output_text.annotation.added", { ...base, annotation_index: annotationIndex, annotation });
      });
      emit("response.output_text.done", { ...base, text: part.text, logprobs: [] });
    }
    emit("response.content_part.done", { ...base, part });
  });
}
