import { modifyVectorStoreRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Renames a vector store, or changes its expiry or metadata.
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const modifyVectorStoreOperation = proxiedOperation(modifyVectorStoreRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
});

export const registerModifyVectorStore = proxiedRoute(modifyVectorStoreRoute, modifyVectorStoreOperation);
