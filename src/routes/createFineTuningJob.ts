import { createFineTuningJobRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/fine_tuning/jobs` creates a fine-tuning job. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const createFineTuningJobOperation: OperationDescriptor = {
  id: "createFineTuningJob",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "json",
  overrides: chatFieldOverrides,
};

export const registerCreateFineTuningJob = proxiedRoute(createFineTuningJobRoute, createFineTuningJobOperation);
