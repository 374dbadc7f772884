import { cancelFineTuningJobRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Cancels a fine-tuning job.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const cancelFineTuningJobOperation = proxiedOperation(cancelFineTuningJobRoute, {});

export const registerCancelFineTuningJob = proxiedRoute(cancelFineTuningJobRoute, cancelFineTuningJobOperation);
