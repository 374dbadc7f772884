import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { createBatchRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { isGatewayFileId } from "../batches/ids.ts";
import { createUnifiedBatch } from "../batches/unified-batches.ts";
import { batchObject } from "../batches/views.ts";
import { batchCaller, requestTarget, unifiedBatchDeps, valueOf } from "./batches/unified.ts";
import { proxiedOperation, proxiedRoute, validatedPart } from "./proxy/proxied-route.ts";

/**
 * Creates a batch.
 * https://platform.openai.com/docs/api-reference/batch
 */
export const createBatchOperation = proxiedOperation(createBatchRoute, {
  overrides: jsonFieldOverrides,
});

/**
 * A batch over a file the gateway keeps runs on the target's own batch API (Anthropic's Message
 * Batches, …) as the gateway's batch (`batches/`); any other passes to the provider.
 */
export const registerCreateBatch = proxiedRoute(createBatchRoute, createBatchOperation, { answerFirst: unifiedBatch });

interface CreateBatchBody {
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata?: Record<string, string> | null;
}

async function unifiedBatch(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const body = validatedPart<CreateBatchBody>(c, "json");
  if (!isGatewayFileId(body.input_file_id)) return null;
  const target = valueOf(await requestTarget(c, deps, createBatchRoute.operationId));
  const batch = await createUnifiedBatch(
    {
      caller: batchCaller(c, target),
      target,
      inputFileId: body.input_file_id,
      endpoint: body.endpoint,
      completionWindow: body.completion_window,
      metadata: body.metadata ?? null,
    },
    unifiedBatchDeps(c, deps),
  );
  return c.json(batchObject(valueOf(batch)), 200);
}
