import { cancelVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel` cancels a vector store file batch. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const cancelVectorStoreFileBatchOperation: OperationDescriptor = {
  id: "cancelVectorStoreFileBatch",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerCancelVectorStoreFileBatch = proxiedRoute(cancelVectorStoreFileBatchRoute, cancelVectorStoreFileBatchOperation);
