import { deleteVideoRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `DELETE /v1/videos/{video_id}` deletes a video and its assets. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const deleteVideoOperation: OperationDescriptor = {
  id: "deleteVideo",
  method: "DELETE",
  upstreamPath: "/videos/{video_id}",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerDeleteVideo(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(deleteVideoRoute, deps),
    async (c) => {
      const operation = { ...deleteVideoOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
