import { cancelResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Cancels a background model response at the upstream (`POST /responses/{id}/cancel`, no body).
 * The request goes upstream as it arrives, to the same path and query.
 */
export const cancelResponseOperation: OperationDescriptor = {
  id: "cancelResponse",
  method: "POST",
  upstreamPath: "/responses/{response_id}/cancel",
  body: "as-sent",
  answer: "json",
  format: "stored",
};

export function registerCancelResponse(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(cancelResponseRoute, deps),
    async (c) => {
      const operation = { ...cancelResponseOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
