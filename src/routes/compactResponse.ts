import { compactResponseRoute } from "../generated/routes.gen.ts";
import { responsesAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Compacts a conversation into fewer items. The model reads the
 * whole conversation, so it is billed in tokens: its `usage` is read and priced like a response's.
 * https://platform.openai.com/docs/api-reference/responses/compact
 */
export const compactResponseOperation = proxiedOperation(compactResponseRoute, {
  answers: responsesAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCompactResponse = proxiedRoute(compactResponseRoute, compactResponseOperation);
