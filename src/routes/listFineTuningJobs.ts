import { listFineTuningJobsRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/fine_tuning/jobs` lists fine-tuning jobs, with the query (`metadata[key]` included) as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningJobsOperation: OperationDescriptor = {
  id: "listFineTuningJobs",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerListFineTuningJobs = proxiedRoute(listFineTuningJobsRoute, listFineTuningJobsOperation);
