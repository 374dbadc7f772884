import { countMessageTokensRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { anthropicRoute, withAnthropicKey } from "./proxy/anthropic-route.ts";

/**
 * Anthropic's token counting, passed as it is to providers that count natively (those listing
 * transforms for it); an OpenAI-format provider answers 400 naming itself rather than a guess.
 * Logged as `stored`: its `input_tokens` are a count, not tokens used, so nothing is priced.
 */
export const countMessageTokensOperation = proxiedOperation(countMessageTokensRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
  nativeOnly: true,
});

export const registerCountMessageTokens = proxiedRoute(anthropicRoute(countMessageTokensRoute), countMessageTokensOperation, {
  prepare: async (c, input) => withAnthropicKey(c, input),
});
