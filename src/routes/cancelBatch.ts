import { cancelBatchRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Cancels a batch.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const cancelBatchOperation = proxiedOperation(cancelBatchRoute, {});

export const registerCancelBatch = proxiedRoute(cancelBatchRoute, cancelBatchOperation);
