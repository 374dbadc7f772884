import { createVideoRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonOrForwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/videos` starts a video generation job: a JSON body is validated and logged as sent; a multipart form (with an image upload) streams upstream as it arrives, unread but for its small text fields (logged). Priced per second of video by model and size (`media-cost.ts`). Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoOperation: OperationDescriptor = {
  id: "createVideo",
  method: "POST",
  upstreamPath: "/videos",
  body: "as-sent",
  answer: "json",
  format: "video",
};

export function registerCreateVideo(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createVideoRoute, deps),
    async (c) => {
      const sent = await jsonOrForwardedProxyInput(c, { ...createVideoOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) }, c.req.valid("header"));
      return proxyResponse(c, await proxyOperation(sent.operation, sent.input, core));
    },
    logHeadersHook,
  );
}
