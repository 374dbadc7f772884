import { updateVectorStoreFileAttributesRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Replaces a vector store file's attributes.
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const updateVectorStoreFileAttributesOperation = proxiedOperation(updateVectorStoreFileAttributesRoute, {
  answers: storedAnswers,
  overrides: jsonFieldOverrides,
});

export const registerUpdateVectorStoreFileAttributes = proxiedRoute(updateVectorStoreFileAttributesRoute, updateVectorStoreFileAttributesOperation);
