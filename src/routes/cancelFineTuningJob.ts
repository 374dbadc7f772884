import { cancelFineTuningJobRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/fine_tuning/jobs/{fine_tuning_job_id}/cancel` cancels a fine-tuning job. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const cancelFineTuningJobOperation: OperationDescriptor = {
  id: "cancelFineTuningJob",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "json",
};

export const registerCancelFineTuningJob = proxiedRoute(cancelFineTuningJobRoute, cancelFineTuningJobOperation);
