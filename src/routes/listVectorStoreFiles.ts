import { listVectorStoreFilesRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}/files` lists a vector store's files, with the query as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const listVectorStoreFilesOperation: OperationDescriptor = {
  id: "listVectorStoreFiles",
  method: "GET",
  upstreamPath: "/vector_stores/{vector_store_id}/files",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerListVectorStoreFiles(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(listVectorStoreFilesRoute, deps),
    async (c) => {
      const operation = { ...listVectorStoreFilesOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
