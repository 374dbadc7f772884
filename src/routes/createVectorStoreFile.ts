import { createVectorStoreFileRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Adds an uploaded file to a vector store.
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const createVectorStoreFileOperation = proxiedOperation(createVectorStoreFileRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCreateVectorStoreFile = proxiedRoute(createVectorStoreFileRoute, createVectorStoreFileOperation);
