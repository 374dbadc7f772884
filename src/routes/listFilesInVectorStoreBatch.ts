import { listFilesInVectorStoreBatchRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists a file batch's files, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const listFilesInVectorStoreBatchOperation = proxiedOperation(listFilesInVectorStoreBatchRoute, {
  answers: storedAnswers,
});

export const registerListFilesInVectorStoreBatch = proxiedRoute(listFilesInVectorStoreBatchRoute, listFilesInVectorStoreBatchOperation);
