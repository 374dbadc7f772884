import { getVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes a vector store file batch.
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const getVectorStoreFileBatchOperation = proxiedOperation(getVectorStoreFileBatchRoute, {
  answers: storedAnswers,
});

export const registerGetVectorStoreFileBatch = proxiedRoute(getVectorStoreFileBatchRoute, getVectorStoreFileBatchOperation);
