import { pauseFineTuningJobRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Pauses a fine-tuning job.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const pauseFineTuningJobOperation = proxiedOperation(pauseFineTuningJobRoute, {});

export const registerPauseFineTuningJob = proxiedRoute(pauseFineTuningJobRoute, pauseFineTuningJobOperation);
