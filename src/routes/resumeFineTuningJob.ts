import { resumeFineTuningJobRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Resumes a paused fine-tuning job.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const resumeFineTuningJobOperation = proxiedOperation(resumeFineTuningJobRoute, {});

export const registerResumeFineTuningJob = proxiedRoute(resumeFineTuningJobRoute, resumeFineTuningJobOperation);
