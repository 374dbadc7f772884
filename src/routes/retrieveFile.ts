import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { retrieveFileRoute } from "../generated/routes.gen.ts";
import { isGatewayFileId } from "../batches/ids.ts";
import { fileObject } from "../batches/views.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one file.
 * https://platform.openai.com/docs/api-reference/files
 */
export const retrieveFileOperation = proxiedOperation(retrieveFileRoute, {});

/** A file the gateway keeps (`batches/`) is described from the store. */
export const registerRetrieveFile = proxiedRoute(retrieveFileRoute, retrieveFileOperation, { answerFirst: keptFile });

async function keptFile(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("file_id") ?? "";
  if (!isGatewayFileId(id)) return null;
  const file = await deps.store.batches.getFile(c.get("auth").workspaceId, id);
  if (!file) throw new GatewayError("not_found", `No file ${id}.`, { param: "file_id" });
  return c.json(fileObject(file), 200);
}
