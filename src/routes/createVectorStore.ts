import { createVectorStoreRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Creates a vector store.
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const createVectorStoreOperation = proxiedOperation(createVectorStoreRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCreateVectorStore = proxiedRoute(createVectorStoreRoute, createVectorStoreOperation);
