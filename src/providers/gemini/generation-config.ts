/**
 * OpenAI sampling, length, format and reasoning fields as Gemini's `generationConfig` (pure).
 * https://ai.google.dev/api/generate-content#generationconfig
 * https://ai.google.dev/gemini-api/docs/thinking
 *
 * `max_completion_tokens` (else `max_tokens`) → maxOutputTokens; temperature, top_p, n (as
 * candidateCount), stop (as stopSequences), seed, presence_penalty and frequency_penalty map one to
 * one. `response_format` json_object → responseMimeType application/json; json_schema → that plus
 * responseSchema (cleaned as tool parameters are). `reasoning_effort` → thinkingConfig with the
 * budgets Google's own OpenAI-compatible endpoint uses: none 0 (thinking off, where the model
 * allows it), minimal 512, low 1024, medium 8192, high 24576; any effort but none also asks for
 * thought summaries (includeThoughts), which come back as `reasoning_content`.
 */
import type { JsonObject } from "../provider.ts";
import { toGeminiSchema } from "./json-schema.ts";
import { isObject, numberOf, stringOf } from "./values.ts";

export const THINKING_BUDGETS: Readonly<Record<string, number>> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576 };

export function toGenerationConfig(body: JsonObject): JsonObject | undefined {
  const config: JsonObject = {};
  const maxTokens = numberOf(body.max_completion_tokens) ?? numberOf(body.max_tokens);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  const direct: [string, string][] = [
    ["temperature", "temperature"],
    ["top_p", "topP"],
    ["n", "candidateCount"],
    ["seed", "seed"],
    ["presence_penalty", "presencePenalty"],
    ["frequency_penalty", "frequencyPenalty"],
  ];
  for (const [from, to] of direct) {
    const value = numberOf(body[from]);
    if (value !== undefined) config[to] = value;
  }
  const stop = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop.filter((s) => typeof s === "string") : [];
  if (stop.length > 0) config.stopSequences = stop;

  const format = isObject(body.response_format) ? body.response_format : undefined;
  if (format?.type === "json_object") config.responseMimeType = "application/json";
  if (format?.type === "json_schema") {
    config.responseMimeType = "application/json";
    const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
    if (isObject(schema)) config.responseSchema = toGeminiSchema(schema);
  }

  const effort = stringOf(body.reasoning_effort);
  const budget = effort === undefined ? undefined : THINKING_BUDGETS[effort];
  if (budget !== undefined) config.thinkingConfig = budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };

  return Object.keys(config).length > 0 ? config : undefined;
}
