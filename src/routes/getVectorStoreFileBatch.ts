import { getVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}` describes a vector store file batch. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const getVectorStoreFileBatchOperation: OperationDescriptor = {
  id: "getVectorStoreFileBatch",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerGetVectorStoreFileBatch = proxiedRoute(getVectorStoreFileBatchRoute, getVectorStoreFileBatchOperation);
