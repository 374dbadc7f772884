import { listFineTuningJobCheckpointsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints` lists a fine-tuning job's checkpoints. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningJobCheckpointsOperation: OperationDescriptor = {
  id: "listFineTuningJobCheckpoints",
  method: "GET",
  upstreamPath: "/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints",
  body: "none",
  answer: "json",
  format: "json",
};

export function registerListFineTuningJobCheckpoints(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(listFineTuningJobCheckpointsRoute, deps),
    async (c) => {
      const operation = { ...listFineTuningJobCheckpointsOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
