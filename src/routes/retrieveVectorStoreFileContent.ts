import { retrieveVectorStoreFileContentRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * A vector store file's parsed content.
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const retrieveVectorStoreFileContentOperation = proxiedOperation(retrieveVectorStoreFileContentRoute, {
  answers: storedAnswers,
});

export const registerRetrieveVectorStoreFileContent = proxiedRoute(retrieveVectorStoreFileContentRoute, retrieveVectorStoreFileContentOperation);
