import { deleteFileRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `DELETE /v1/files/{file_id}` deletes one file. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/files
 */
export const deleteFileOperation: OperationDescriptor = {
  id: "deleteFile",
  method: "DELETE",
  upstreamPath: "/files/{file_id}",
  body: "none",
  answer: "json",
  format: "json",
};

export function registerDeleteFile(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(deleteFileRoute, deps),
    async (c) => {
      const operation = { ...deleteFileOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
