import { getVectorStoreRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/vector_stores/{vector_store_id}` describes one vector store. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const getVectorStoreOperation: OperationDescriptor = {
  id: "getVectorStore",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerGetVectorStore = proxiedRoute(getVectorStoreRoute, getVectorStoreOperation);
