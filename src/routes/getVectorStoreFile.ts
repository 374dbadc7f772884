import { getVectorStoreFileRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one file of a vector store.
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const getVectorStoreFileOperation = proxiedOperation(getVectorStoreFileRoute, {
  answers: storedAnswers,
});

export const registerGetVectorStoreFile = proxiedRoute(getVectorStoreFileRoute, getVectorStoreFileOperation);
