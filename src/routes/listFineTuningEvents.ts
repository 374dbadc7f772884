import { listFineTuningEventsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `GET /v1/fine_tuning/jobs/{fine_tuning_job_id}/events` lists a fine-tuning job's events. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningEventsOperation: OperationDescriptor = {
  id: "listFineTuningEvents",
  method: "GET",
  upstreamPath: "/fine_tuning/jobs/{fine_tuning_job_id}/events",
  body: "none",
  answer: "json",
  format: "json",
};

export function registerListFineTuningEvents(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(listFineTuningEventsRoute, deps),
    async (c) => {
      const operation = { ...listFineTuningEventsOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
