import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { listFilesRoute } from "../generated/routes.gen.ts";
import { fileObject } from "../batches/views.ts";
import { batchProviderTarget } from "./batches/unified.ts";
import { proxiedOperation, proxiedRoute, validatedPart } from "./proxy/proxied-route.ts";

/**
 * Lists the upstream's files, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/files
 */
export const listFilesOperation = proxiedOperation(listFilesRoute, {});

/** For a provider whose batch API the gateway drives, the files the gateway keeps, newest first. */
export const registerListFiles = proxiedRoute(listFilesRoute, listFilesOperation, { answerFirst: keptFiles });

async function keptFiles(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  if (!(await batchProviderTarget(c, deps, listFilesRoute.operationId))) return null;
  const query = validatedPart<{ purpose?: string; limit?: number }>(c, "query");
  const limit = Math.min(Math.max(query.limit ?? 100, 1), 10_000);
  const files = await deps.store.batches.listFiles(c.get("auth").workspaceId, limit);
  const data = files.filter((file) => query.purpose === undefined || file.purpose === query.purpose).map(fileObject);
  return c.json({ object: "list", data, has_more: false }, 200);
}
