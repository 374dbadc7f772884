import { downloadVideoContentRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/videos/{video_id}/content` a video's bytes (or its thumbnail or spritesheet, by `variant`), relayed as they arrive with the upstream's content type. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const downloadVideoContentOperation: OperationDescriptor = {
  id: "downloadVideoContent",
  method: "GET",
  upstreamPath: "/videos/{video_id}/content",
  body: "none",
  answer: "as-sent",
  format: "stored",
};

export function registerDownloadVideoContent(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(downloadVideoContentRoute, deps),
    async (c) => {
      const operation = { ...downloadVideoContentOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
