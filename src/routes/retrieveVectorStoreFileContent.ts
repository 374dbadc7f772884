import { retrieveVectorStoreFileContentRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}/files/{file_id}/content` a vector store file's parsed content. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const retrieveVectorStoreFileContentOperation: OperationDescriptor = {
  id: "retrieveVectorStoreFileContent",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerRetrieveVectorStoreFileContent = proxiedRoute(retrieveVectorStoreFileContentRoute, retrieveVectorStoreFileContentOperation);
