import { createCompletionRoute } from "../generated/routes.gen.ts";
import { alwaysCacheable, type SemanticSplit } from "../operation/descriptor.ts";
import { nonEmpty, SEMANTIC_TURN } from "../families/chat/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * The legacy completions: a JSON answer, or with `stream` server-sent
 * events ending in `[DONE]`. Any answer may be cached; the semantic cache compares a single
 * prompt string. Guardrails judge the `prompt` strings and the choices' `text`.
 * https://platform.openai.com/docs/api-reference/completions
 */
export const completionOperation = proxiedOperation(createCompletionRoute, {
  cache: alwaysCacheable,
  semantic: completionSemanticSplit,
  genAiOperation: "text_completion",
  overrides: jsonFieldOverrides,
  guardrails: { input: promptStrings, output: choiceTexts, streamOutput: streamedTexts },
});

export const registerCreateCompletion = proxiedRoute(createCompletionRoute, completionOperation);

/** A single prompt string is compared by meaning; the rest of the body must match exactly. */
function completionSemanticSplit(body: JsonObject): ReturnType<SemanticSplit> {
  const { prompt } = body;
  if (typeof prompt !== "string" || !nonEmpty(prompt)) return null;
  return { text: prompt, rest: { ...body, prompt: SEMANTIC_TURN } };
}

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
