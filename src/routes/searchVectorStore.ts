import { searchVectorStoreRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/vector_stores/{vector_store_id}/search` searches a vector store; not priced (no tokens). Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const searchVectorStoreOperation: OperationDescriptor = {
  id: "searchVectorStore",
  method: "POST",
  upstreamPath: "/vector_stores/{vector_store_id}/search",
  body: "json",
  answer: "json",
  format: "stored",
};

export function registerSearchVectorStore(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(searchVectorStoreRoute, deps),
    async (c) => {
      const operation = { ...searchVectorStoreOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      const input = await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header"));
      return proxyResponse(c, await proxyOperation(operation, input, core));
    },
    logHeadersHook,
  );
}
