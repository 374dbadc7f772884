import { retrieveFineTuningJobRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one fine-tuning job.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const retrieveFineTuningJobOperation = proxiedOperation(retrieveFineTuningJobRoute, {});

export const registerRetrieveFineTuningJob = proxiedRoute(retrieveFineTuningJobRoute, retrieveFineTuningJobOperation);
