import { createCompletionRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { alwaysCacheable } from "../cache/cacheable.ts";
import { completionSemanticSplit } from "../cache/semantic-split.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * `POST /v1/completions`, the legacy completions: a JSON answer, or with `stream` server-sent
 * events ending in `[DONE]`. Guardrails judge the `prompt` strings and the choices' `text`.
 * https://platform.openai.com/docs/api-reference/completions
 */
export const completionOperation: OperationDescriptor = {
  id: "createCompletion",
  method: "POST",
  upstreamPath: { fixed: "/completions" },
  body: "json",
  answer: "json",
  format: "json",
  cache: alwaysCacheable,
  semantic: completionSemanticSplit,
  genAiOperation: "text_completion",
  overrides: chatFieldOverrides,
  guardrails: { input: promptStrings, output: choiceTexts, streamOutput: streamedTexts },
};

export const registerCreateCompletion = proxiedRoute(createCompletionRoute, completionOperation);

/** The prompt strings, joined by newlines; token arrays carry no text to judge. */
function promptStrings(body: JsonObject): string {
  const { prompt } = body;
  if (typeof prompt === "string") return prompt;
  return Array.isArray(prompt) ? prompt.filter((item): item is string => typeof item === "string").join("\n") : "";
}

/** Each choice's `text`, joined by newlines. */
function choiceTexts(answer: JsonObject): string {
  const { choices } = answer;
  if (!Array.isArray(choices)) return "";
  return choices.map((choice: unknown) => (isObject(choice) && typeof choice.text === "string" ? choice.text : "")).join("\n");
}

/** A stream's text: every chunk's choice texts, in order (the end marker and unparsable data skipped). */
function streamedTexts(chunks: readonly string[]): string {
  let text = "";
  for (const chunk of chunks) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(chunk);
    } catch {
      continue;
    }
    if (!isObject(parsed) || !Array.isArray(parsed.choices)) continue;
    for (const choice of parsed.choices as unknown[]) if (isObject(choice) && typeof choice.text === "string") text += choice.text;
  }
  return text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
