import { deleteVectorStoreFileRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `DELETE /v1/vector_stores/{vector_store_id}/files/{file_id}` removes a file from a vector store (the file itself stays). Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const deleteVectorStoreFileOperation: OperationDescriptor = {
  id: "deleteVectorStoreFile",
  method: "DELETE",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerDeleteVectorStoreFile = proxiedRoute(deleteVectorStoreFileRoute, deleteVectorStoreFileOperation);
