import { cancelVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel` cancels a vector store file batch. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const cancelVectorStoreFileBatchOperation: OperationDescriptor = {
  id: "cancelVectorStoreFileBatch",
  method: "POST",
  upstreamPath: "/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerCancelVectorStoreFileBatch(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(cancelVectorStoreFileBatchRoute, deps),
    async (c) => {
      const operation = { ...cancelVectorStoreFileBatchOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
