import { compactResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/responses/compact` compacts a conversation into fewer items. The model reads the
 * whole conversation, so it is billed in tokens: its `usage` is read and priced like a response's.
 * https://platform.openai.com/docs/api-reference/responses/compact
 */
export const compactResponseOperation: OperationDescriptor = {
  id: "compactResponse",
  method: "POST",
  upstreamPath: "/responses/compact",
  body: "json",
  answer: "json",
  format: "responses",
};

export function registerCompactResponse(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(compactResponseRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(compactResponseOperation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core)),
    logHeadersHook,
  );
}
