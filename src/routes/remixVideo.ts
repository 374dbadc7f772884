import { remixVideoRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/videos/{video_id}/remix` starts a new job from a finished video with a new prompt, priced like a created job. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const remixVideoOperation: OperationDescriptor = {
  id: "remixVideo",
  method: "POST",
  upstreamPath: "/videos/{video_id}/remix",
  body: "json",
  answer: "json",
  format: "video",
};

export function registerRemixVideo(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(remixVideoRoute, deps),
    async (c) => {
      const operation = { ...remixVideoOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
