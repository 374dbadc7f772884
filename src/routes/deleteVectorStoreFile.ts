import { deleteVectorStoreFileRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Removes a file from a vector store (the file itself stays).
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const deleteVectorStoreFileOperation = proxiedOperation(deleteVectorStoreFileRoute, {
  answers: storedAnswers,
});

export const registerDeleteVectorStoreFile = proxiedRoute(deleteVectorStoreFileRoute, deleteVectorStoreFileOperation);
