import { createFineTuningJobRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Creates a fine-tuning job.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const createFineTuningJobOperation = proxiedOperation(createFineTuningJobRoute, {
  overrides: jsonFieldOverrides,
});

export const registerCreateFineTuningJob = proxiedRoute(createFineTuningJobRoute, createFineTuningJobOperation);
