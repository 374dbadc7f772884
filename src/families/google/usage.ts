/**
 * Token usage between the two formats. Chat's `completion_tokens` include reasoning tokens;
 * Gemini counts thoughts apart (`thoughtsTokenCount`) from the candidates, and both formats count
 * cached tokens inside the prompt, so a round trip keeps every count.
 * https://ai.google.dev/api/generate-content#UsageMetadata
 */
import { normaliseUsage, type Usage } from "../../operation/answer-reader.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { usageOf } from "../../providers/gemini/answer-parts.ts";
import { isObject, numberField, objectField } from "./json.ts";

/** Gemini's `usageMetadata` from a chat completion's `usage`; null when there is none. */
export function usageMetadataFromChat(chatUsage: unknown): JsonObject | null {
  if (!isObject(chatUsage)) return null;
  const prompt = numberField(chatUsage, "prompt_tokens") ?? 0;
  const completion = numberField(chatUsage, "completion_tokens") ?? 0;
  const thoughts = numberField(objectField(chatUsage, "completion_tokens_details"), "reasoning_tokens") ?? 0;
  const cached = numberField(objectField(chatUsage, "prompt_tokens_details"), "cached_tokens") ?? 0;
  const metadata: JsonObject = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(completion - thoughts, 0),
    totalTokenCount: numberField(chatUsage, "total_tokens") ?? prompt + completion,
  };
  if (thoughts > 0) metadata.thoughtsTokenCount = thoughts;
  if (cached > 0) metadata.cachedContentTokenCount = cached;
  return metadata;
}

/** The log's usage from a `usageMetadata`; null when it has no counts. Never throws. */
export function usageFromMetadata(raw: unknown): Usage | null {
  return normaliseUsage(usageOf(raw));
}
