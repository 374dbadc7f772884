import { retrieveBatchRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/batches/{batch_id}` describes one batch. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/batch
 */
export const retrieveBatchOperation: OperationDescriptor = {
  id: "retrieveBatch",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerRetrieveBatch = proxiedRoute(retrieveBatchRoute, retrieveBatchOperation);
