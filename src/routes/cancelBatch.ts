import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { cancelBatchRoute } from "../generated/routes.gen.ts";
import { isGatewayBatchId } from "../batches/ids.ts";
import { cancelUnifiedBatch, checkBatchTarget } from "../batches/unified-batches.ts";
import { batchObject } from "../batches/views.ts";
import { requestTarget, unifiedBatchDeps, valueOf } from "./batches/unified.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Cancels a batch.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const cancelBatchOperation = proxiedOperation(cancelBatchRoute, {});

/** One of the gateway's own batches is cancelled through its provider's batch API. */
export const registerCancelBatch = proxiedRoute(cancelBatchRoute, cancelBatchOperation, { answerFirst: unifiedCancel });

async function unifiedCancel(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("batch_id") ?? "";
  if (!isGatewayBatchId(id)) return null;
  const batch = await deps.store.batches.getBatch(c.get("auth").workspaceId, id);
  if (!batch) throw new GatewayError("not_found", `No batch ${id}.`, { param: "batch_id" });
  const target = valueOf(checkBatchTarget(batch, valueOf(await requestTarget(c, deps, cancelBatchRoute.operationId))));
  return c.json(batchObject(valueOf(await cancelUnifiedBatch(batch, target, unifiedBatchDeps(c, deps)))), 200);
}
