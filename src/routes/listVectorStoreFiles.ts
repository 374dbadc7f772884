import { listVectorStoreFilesRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}/files` lists a vector store's files, with the query as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores-files
 */
export const listVectorStoreFilesOperation: OperationDescriptor = {
  id: "listVectorStoreFiles",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerListVectorStoreFiles = proxiedRoute(listVectorStoreFilesRoute, listVectorStoreFilesOperation);
