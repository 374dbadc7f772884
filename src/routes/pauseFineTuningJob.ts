import { pauseFineTuningJobRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/fine_tuning/jobs/{fine_tuning_job_id}/pause` pauses a fine-tuning job. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const pauseFineTuningJobOperation: OperationDescriptor = {
  id: "pauseFineTuningJob",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "json",
};

export const registerPauseFineTuningJob = proxiedRoute(pauseFineTuningJobRoute, pauseFineTuningJobOperation);
