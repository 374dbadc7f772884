import { searchVectorStoreRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Searches a vector store; not priced (no tokens).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const searchVectorStoreOperation = proxiedOperation(searchVectorStoreRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
});

export const registerSearchVectorStore = proxiedRoute(searchVectorStoreRoute, searchVectorStoreOperation);
