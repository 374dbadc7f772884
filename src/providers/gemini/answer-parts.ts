/**
 * What the pieces of a Gemini answer mean in OpenAI terms (pure), shared by the JSON answer and
 * the stream: finish reasons, usage, and a candidate's parts read as text, thoughts and calls.
 * https://ai.google.dev/api/generate-content#FinishReason
 * https://ai.google.dev/api/generate-content#UsageMetadata
 */
import type { JsonObject } from "../provider.ts";
import { toolCallId } from "./tool-call-ids.ts";
import { isObject, numberOf, objectsOf, stringOf } from "./values.ts";

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"]);

/**
 * MAX_TOKENS → length; a safety, recitation, blocklist, prohibited-content, SPII, image-safety or
 * language stop → content_filter; a candidate that called functions → tool_calls; anything else
 * (STOP, OTHER, MALFORMED_FUNCTION_CALL, reasons added later) → stop.
 */
export function finishReasonOf(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason !== undefined && FILTERED.has(reason)) return "content_filter";
  return calledTools ? "tool_calls" : "stop";
}

/**
 * `usageMetadata` as OpenAI usage. Gemini counts thoughts apart from the candidates while OpenAI
 * counts reasoning inside completion tokens (and both bill it as output), so completion tokens
 * are candidates + thoughts. Prompt tokens include cached ones (as in OpenAI) and the tool-use
 * prompt (search results and the like, billed as input).
 */
export function usageOf(metadata: unknown): JsonObject | null {
  if (!isObject(metadata)) return null;
  const prompt = (numberOf(metadata.promptTokenCount) ?? 0) + (numberOf(metadata.toolUsePromptTokenCount) ?? 0);
  const thoughts = numberOf(metadata.thoughtsTokenCount) ?? 0;
  const completion = (numberOf(metadata.candidatesTokenCount) ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: numberOf(metadata.totalTokenCount) ?? prompt + completion,
    prompt_tokens_details: { cached_tokens: numberOf(metadata.cachedContentTokenCount) ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

/** A function call as an OpenAI tool call (without its stream index). */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A candidate's parts, read in order. */
export interface ReadParts {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
}

/**
 * Text parts to text, thought parts (`thought: true`) to reasoning, `functionCall` parts to tool
 * calls numbered from `firstCall` (a stream numbers across its chunks). Other parts (inline data,
 * executable code) are not carried.
 */
export function readParts(candidate: JsonObject, responseId: string | undefined, firstCall = 0): ReadParts {
  const read: ReadParts = { text: "", reasoning: "", toolCalls: [] };
  const content = isObject(candidate.content) ? candidate.content : {};
  const index = numberOf(candidate.index) ?? 0;
  for (const part of objectsOf(content.parts)) {
    if (isObject(part.functionCall)) {
      const call = part.functionCall;
      const at = { responseId, candidate: index, position: firstCall + read.toolCalls.length };
      const id = toolCallId(stringOf(call.id), at, stringOf(part.thoughtSignature));
      read.toolCalls.push({ id, type: "function", function: { name: stringOf(call.name) ?? "", arguments: JSON.stringify(isObject(call.args) ? call.args : {}) } });
    } else if (typeof part.text === "string") {
      if (part.thought === true) read.reasoning += part.text;
      else read.text += part.text;
    }
  }
  return read;
}

/** The answer's model: Gemini's `modelVersion` when it names one. */
export function modelOf(answer: JsonObject): string | undefined {
  const version = stringOf(answer.modelVersion);
  return version === "" ? undefined : version;
}
