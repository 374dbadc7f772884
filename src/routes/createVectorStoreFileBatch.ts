import { createVectorStoreFileBatchRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/vector_stores/{vector_store_id}/file_batches` adds several files to a vector store at once. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-file-batches
 */
export const createVectorStoreFileBatchOperation: OperationDescriptor = {
  id: "createVectorStoreFileBatch",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "stored",
  overrides: chatFieldOverrides,
};

export const registerCreateVectorStoreFileBatch = proxiedRoute(createVectorStoreFileBatchRoute, createVectorStoreFileBatchOperation);
