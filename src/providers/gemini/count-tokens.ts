/**
 * The Gemini API's token counting (pure): the client's body as it sent it, without the `model`
 * the gateway put in it to select the target, to the model's own `:countTokens` path.
 * https://ai.google.dev/api/tokens#method:-models.counttokens
 */
import type { JsonObject } from "../provider.ts";

export function toGeminiCountTokensRequest(body: JsonObject, context: { model: string }): { body: JsonObject; path: string } {
  const { model: _selected, ...sent } = body;
  return { body: sent, path: `/models/${encodeURIComponent(context.model.replace(/^models\//, ""))}:countTokens` };
}
