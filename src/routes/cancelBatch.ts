import { cancelBatchRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/batches/{batch_id}/cancel` cancels a batch. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/batch
 */
export const cancelBatchOperation: OperationDescriptor = {
  id: "cancelBatch",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "json",
};

export const registerCancelBatch = proxiedRoute(cancelBatchRoute, cancelBatchOperation);
