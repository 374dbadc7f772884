import { createVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Adds several files to a vector store at once.
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const createVectorStoreFileBatchOperation = proxiedOperation(createVectorStoreFileBatchRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCreateVectorStoreFileBatch = proxiedRoute(createVectorStoreFileBatchRoute, createVectorStoreFileBatchOperation);
