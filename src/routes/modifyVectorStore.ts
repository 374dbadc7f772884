import { modifyVectorStoreRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/vector_stores/{vector_store_id}` renames a vector store, or changes its expiry or metadata. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const modifyVectorStoreOperation: OperationDescriptor = {
  id: "modifyVectorStore",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "stored",
  overrides: chatFieldOverrides,
};

export const registerModifyVectorStore = proxiedRoute(modifyVectorStoreRoute, modifyVectorStoreOperation);
