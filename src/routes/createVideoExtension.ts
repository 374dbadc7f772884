import { createVideoExtensionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonOrForwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/videos/extensions` extends a finished video with a new segment: a new video job, priced per second of video by model and size like a created one (`media-cost.ts`). A JSON body is validated and logged as sent; a multipart form streams upstream as it arrives.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoExtensionOperation: OperationDescriptor = {
  id: "createVideoExtension",
  method: "POST",
  upstreamPath: "/videos/extensions",
  body: "as-sent",
  answer: "json",
  format: "video",
};

export function registerCreateVideoExtension(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createVideoExtensionRoute, deps),
    async (c) => {
      const sent = await jsonOrForwardedProxyInput(c, { ...createVideoExtensionOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) }, c.req.valid("header"));
      return proxyResponse(c, await proxyOperation(sent.operation, sent.input, core));
    },
    logHeadersHook,
  );
}
