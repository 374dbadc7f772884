import { listBatchesRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Lists batches, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const listBatchesOperation = proxiedOperation(listBatchesRoute, {});

export const registerListBatches = proxiedRoute(listBatchesRoute, listBatchesOperation);
