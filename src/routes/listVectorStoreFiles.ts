import { listVectorStoreFilesRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists a vector store's files, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const listVectorStoreFilesOperation = proxiedOperation(listVectorStoreFilesRoute, {
  answers: storedAnswers,
});

export const registerListVectorStoreFiles = proxiedRoute(listVectorStoreFilesRoute, listVectorStoreFilesOperation);
