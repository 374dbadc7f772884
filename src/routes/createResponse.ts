import { createResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { isResponsesStreamEnd, responsesInputText, responsesOutputText, responsesStreamText } from "../core/responses-text.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * The Responses API. Its streams are typed events (`event: response.output_text.delta`…) with no
 * `[DONE]`: they end with `response.completed` (or `failed`, `incomplete`), which is held back
 * while output guardrails judge the stream, or where the bytes end, which is clean too.
 */
export const responseOperation: OperationDescriptor = {
  id: "createResponse",
  method: "POST",
  upstreamPath: "/responses",
  body: "json",
  answer: "json",
  streamEndsAtEof: true,
  isStreamEnd: isResponsesStreamEnd,
  format: "responses",
  guardrails: { input: responsesInputText, output: responsesOutputText, streamOutput: responsesStreamText },
};

export function registerCreateResponse(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createResponseRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(responseOperation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core)),
    logHeadersHook,
  );
}
