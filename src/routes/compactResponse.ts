import { compactResponseRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/responses/compact` compacts a conversation into fewer items. The model reads the
 * whole conversation, so it is billed in tokens: its `usage` is read and priced like a response's.
 * https://platform.openai.com/docs/api-reference/responses/compact
 */
export const compactResponseOperation: OperationDescriptor = {
  id: "compactResponse",
  method: "POST",
  upstreamPath: { fixed: "/responses/compact" },
  body: "json",
  answer: "json",
  format: "responses",
  overrides: chatFieldOverrides,
};

export const registerCompactResponse = proxiedRoute(compactResponseRoute, compactResponseOperation);
