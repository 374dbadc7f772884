import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { retrieveBatchRoute } from "../generated/routes.gen.ts";
import { isGatewayBatchId } from "../batches/ids.ts";
import { checkBatchTarget, isFinished, refreshUnifiedBatch } from "../batches/unified-batches.ts";
import { batchObject } from "../batches/views.ts";
import { batchCaller, requestTarget, unifiedBatchDeps, valueOf } from "./batches/unified.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one batch.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const retrieveBatchOperation = proxiedOperation(retrieveBatchRoute, {});

/** One of the gateway's own batches is read from its record, and its provider's job polled while it runs. */
export const registerRetrieveBatch = proxiedRoute(retrieveBatchRoute, retrieveBatchOperation, { answerFirst: unifiedBatch });

async function unifiedBatch(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("batch_id") ?? "";
  if (!isGatewayBatchId(id)) return null;
  const batch = await deps.store.batches.getBatch(c.get("auth").workspaceId, id);
  if (!batch) throw new GatewayError("not_found", `No batch ${id}.`, { param: "batch_id" });
  if (isFinished(batch)) return c.json(batchObject(batch), 200);
  const target = valueOf(checkBatchTarget(batch, valueOf(await requestTarget(c, deps, retrieveBatchRoute.operationId))));
  const current = valueOf(await refreshUnifiedBatch(batch, target, batchCaller(c, target), unifiedBatchDeps(c, deps)));
  return c.json(batchObject(current), 200);
}
