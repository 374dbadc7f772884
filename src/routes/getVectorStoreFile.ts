import { getVectorStoreFileRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}/files/{file_id}` describes one file of a vector store. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const getVectorStoreFileOperation: OperationDescriptor = {
  id: "getVectorStoreFile",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerGetVectorStoreFile = proxiedRoute(getVectorStoreFileRoute, getVectorStoreFileOperation);
