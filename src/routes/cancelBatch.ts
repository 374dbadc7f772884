import { cancelBatchRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/batches/{batch_id}/cancel` cancels a batch. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/batch
 */
export const cancelBatchOperation: OperationDescriptor = {
  id: "cancelBatch",
  method: "POST",
  upstreamPath: "/batches/{batch_id}/cancel",
  body: "as-sent",
  answer: "json",
  format: "json",
};

export function registerCancelBatch(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(cancelBatchRoute, deps),
    async (c) => {
      const operation = { ...cancelBatchOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
