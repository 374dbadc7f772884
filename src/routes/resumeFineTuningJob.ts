import { resumeFineTuningJobRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * `POST /v1/fine_tuning/jobs/{fine_tuning_job_id}/resume` resumes a paused fine-tuning job. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const resumeFineTuningJobOperation: OperationDescriptor = {
  id: "resumeFineTuningJob",
  method: "POST",
  upstreamPath: "/fine_tuning/jobs/{fine_tuning_job_id}/resume",
  body: "as-sent",
  answer: "json",
  format: "json",
};

export function registerResumeFineTuningJob(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(resumeFineTuningJobRoute, deps),
    async (c) => {
      const operation = { ...resumeFineTuningJobOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
