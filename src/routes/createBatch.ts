import { createBatchRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Creates a batch.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const createBatchOperation = proxiedOperation(createBatchRoute, {
  overrides: jsonFieldOverrides,
});

export const registerCreateBatch = proxiedRoute(createBatchRoute, createBatchOperation);
