import { listFineTuningJobCheckpointsRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints` lists a fine-tuning job's checkpoints. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningJobCheckpointsOperation: OperationDescriptor = {
  id: "listFineTuningJobCheckpoints",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerListFineTuningJobCheckpoints = proxiedRoute(listFineTuningJobCheckpointsRoute, listFineTuningJobCheckpointsOperation);
