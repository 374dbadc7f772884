import { deleteVectorStoreRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `DELETE /v1/vector_stores/{vector_store_id}` deletes a vector store. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const deleteVectorStoreOperation: OperationDescriptor = {
  id: "deleteVectorStore",
  method: "DELETE",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerDeleteVectorStore = proxiedRoute(deleteVectorStoreRoute, deleteVectorStoreOperation);
