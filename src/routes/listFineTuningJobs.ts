import { listFineTuningJobsRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists fine-tuning jobs, with the query (`metadata[key]` included) as the client sent it.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningJobsOperation = proxiedOperation(listFineTuningJobsRoute, {});

export const registerListFineTuningJobs = proxiedRoute(listFineTuningJobsRoute, listFineTuningJobsOperation);
