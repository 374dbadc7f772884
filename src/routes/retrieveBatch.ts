import { retrieveBatchRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Describes one batch.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const retrieveBatchOperation = proxiedOperation(retrieveBatchRoute, {});

export const registerRetrieveBatch = proxiedRoute(retrieveBatchRoute, retrieveBatchOperation);
