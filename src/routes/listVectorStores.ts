import { listVectorStoresRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/vector_stores` lists vector stores, with the query as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const listVectorStoresOperation: OperationDescriptor = {
  id: "listVectorStores",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerListVectorStores = proxiedRoute(listVectorStoresRoute, listVectorStoresOperation);
