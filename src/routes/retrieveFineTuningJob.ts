import { retrieveFineTuningJobRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/fine_tuning/jobs/{fine_tuning_job_id}` describes one fine-tuning job. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const retrieveFineTuningJobOperation: OperationDescriptor = {
  id: "retrieveFineTuningJob",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerRetrieveFineTuningJob = proxiedRoute(retrieveFineTuningJobRoute, retrieveFineTuningJobOperation);
