import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { listBatchesRoute } from "../generated/routes.gen.ts";
import { batchObject } from "../batches/views.ts";
import { batchProviderTarget } from "./batches/unified.ts";
import { proxiedOperation, proxiedRoute, validatedPart } from "./proxy/proxied-route.ts";

/**
 * Lists batches, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const listBatchesOperation = proxiedOperation(listBatchesRoute, {});

/** For a provider whose batch API the gateway drives, the gateway's own batches of the workspace, newest first. */
export const registerListBatches = proxiedRoute(listBatchesRoute, listBatchesOperation, { answerFirst: unifiedBatches });

async function unifiedBatches(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const target = await batchProviderTarget(c, deps, listBatchesRoute.operationId);
  if (!target) return null;
  const query = validatedPart<{ after?: string; limit?: number }>(c, "query");
  const limit = Math.min(Math.max(query.limit ?? 20, 1), 100);
  // One more than asked: whether there are more.
  const rows = await deps.store.batches.listBatches(c.get("auth").workspaceId, limit + 1, query.after ?? null);
  const page = rows.slice(0, limit).map(batchObject);
  return c.json({ object: "list", data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > limit }, 200);
}
