import { completeUploadRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/uploads/{upload_id}/complete` completes an upload from its parts, in order. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const completeUploadOperation: OperationDescriptor = {
  id: "completeUpload",
  method: "POST",
  upstreamPath: "/uploads/{upload_id}/complete",
  body: "json",
  answer: "json",
  format: "json",
};

export function registerCompleteUpload(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(completeUploadRoute, deps),
    async (c) => {
      const operation = { ...completeUploadOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
