import { countContentTokensRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { geminiModel, googleRoute, withGoogleKey } from "./proxy/google-route.ts";

/**
 * The Gemini API's token counting, passed to providers that count Gemini tokens natively (those
 * listing transforms for it, which name the model's own path); an OpenAI-format provider answers
 * 400 naming itself rather than a guess from another tokenizer. The path's model goes in the body
 * the core holds, where it selects and is logged; the transforms take it out. Logged as `stored`:
 * its `totalTokens` are a count, not tokens used, so nothing is priced.
 */
export const countContentTokensOperation = proxiedOperation(countContentTokensRoute, {
  upstreamPath: { fixed: "/models:countTokens" },
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
  nativeOnly: true,
});

export const registerCountContentTokens = proxiedRoute(googleRoute(countContentTokensRoute), countContentTokensOperation, {
  async prepare(c, read) {
    const input = withGoogleKey(c, read);
    if (input.body.kind !== "json") return input;
    const clientBodyText = input.body.raw ?? JSON.stringify(input.body.value);
    return { ...input, body: { kind: "json", value: { ...input.body.value, model: geminiModel(c, countContentTokensRoute) } }, clientBodyText };
  },
});
