import { createBatchRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/batches` creates a batch. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/batch
 */
export const createBatchOperation: OperationDescriptor = {
  id: "createBatch",
  method: "POST",
  upstreamPath: "/batches",
  body: "json",
  answer: "json",
  format: "json",
};

export function registerCreateBatch(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createBatchRoute, deps),
    async (c) => {
      const operation = { ...createBatchOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
