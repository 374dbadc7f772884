import { retrieveBatchRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/batches/{batch_id}` describes one batch. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/batch
 */
export const retrieveBatchOperation: OperationDescriptor = {
  id: "retrieveBatch",
  method: "GET",
  upstreamPath: "/batches/{batch_id}",
  body: "none",
  answer: "json",
  format: "json",
};

export function registerRetrieveBatch(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(retrieveBatchRoute, deps),
    async (c) => {
      const operation = { ...retrieveBatchOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
