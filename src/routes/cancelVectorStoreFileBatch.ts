import { cancelVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Cancels a vector store file batch.
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const cancelVectorStoreFileBatchOperation = proxiedOperation(cancelVectorStoreFileBatchRoute, {
  answers: storedAnswers,
});

export const registerCancelVectorStoreFileBatch = proxiedRoute(cancelVectorStoreFileBatchRoute, cancelVectorStoreFileBatchOperation);
