import { deleteVectorStoreRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Deletes a vector store.
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const deleteVectorStoreOperation = proxiedOperation(deleteVectorStoreRoute, {
  answers: storedAnswers,
});

export const registerDeleteVectorStore = proxiedRoute(deleteVectorStoreRoute, deleteVectorStoreOperation);
