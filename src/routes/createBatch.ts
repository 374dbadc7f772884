import { createBatchRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/batches` creates a batch. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/batch
 */
export const createBatchOperation: OperationDescriptor = {
  id: "createBatch",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "json",
  overrides: chatFieldOverrides,
};

export const registerCreateBatch = proxiedRoute(createBatchRoute, createBatchOperation);
