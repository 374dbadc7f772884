import { getVectorStoreRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one vector store.
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const getVectorStoreOperation = proxiedOperation(getVectorStoreRoute, {
  answers: storedAnswers,
});

export const registerGetVectorStore = proxiedRoute(getVectorStoreRoute, getVectorStoreOperation);
