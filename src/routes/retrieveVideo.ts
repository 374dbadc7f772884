import { retrieveVideoRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/videos/{video_id}` describes one video job; not priced again (the job was priced when created). Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const retrieveVideoOperation: OperationDescriptor = {
  id: "retrieveVideo",
  method: "GET",
  upstreamPath: "/videos/{video_id}",
  body: "none",
  answer: "json",
  format: "stored",
};

export function registerRetrieveVideo(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(retrieveVideoRoute, deps),
    async (c) => {
      const operation = { ...retrieveVideoOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
