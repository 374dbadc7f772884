import { listFineTuningJobsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/fine_tuning/jobs` lists fine-tuning jobs, with the query (`metadata[key]` included) as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningJobsOperation: OperationDescriptor = {
  id: "listFineTuningJobs",
  method: "GET",
  upstreamPath: "/fine_tuning/jobs",
  body: "none",
  answer: "json",
  format: "json",
};

export function registerListFineTuningJobs(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(listFineTuningJobsRoute, deps),
    async (c) => {
      const operation = { ...listFineTuningJobsOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
