import { listResponseInputItemsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * The input items of a stored model response (`GET /responses/{id}/input_items`, its query passed on).
 * The request goes upstream as it arrives, to the same path and query.
 */
export const listResponseInputItemsOperation: OperationDescriptor = {
  id: "listResponseInputItems",
  method: "GET",
  upstreamPath: "/responses/{response_id}/input_items",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerListResponseInputItems(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(listResponseInputItemsRoute, deps),
    async (c) => {
      const operation = { ...listResponseInputItemsOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
