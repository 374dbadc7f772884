import { getVectorStoreRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}` describes one vector store. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const getVectorStoreOperation: OperationDescriptor = {
  id: "getVectorStore",
  method: "GET",
  upstreamPath: "/vector_stores/{vector_store_id}",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerGetVectorStore(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(getVectorStoreRoute, deps),
    async (c) => {
      const operation = { ...getVectorStoreOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
