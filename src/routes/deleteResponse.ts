import { deleteResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Deletes a stored model response at the upstream (`DELETE /responses/{id}`).
 * The request goes upstream as it arrives, to the same path and query.
 */
export const deleteResponseOperation: OperationDescriptor = {
  id: "deleteResponse",
  method: "DELETE",
  upstreamPath: "/responses/{response_id}",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerDeleteResponse(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(deleteResponseRoute, deps),
    async (c) => {
      const operation = { ...deleteResponseOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
