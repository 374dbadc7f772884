import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { deleteFileRoute } from "../generated/routes.gen.ts";
import { isGatewayFileId } from "../batches/ids.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Deletes one file.
 * https://platform.openai.com/docs/api-reference/files
 */
export const deleteFileOperation = proxiedOperation(deleteFileRoute, {});

/** A file the gateway keeps (`batches/`) is deleted from the store. */
export const registerDeleteFile = proxiedRoute(deleteFileRoute, deleteFileOperation, { answerFirst: deleteKeptFile });

async function deleteKeptFile(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("file_id") ?? "";
  if (!isGatewayFileId(id)) return null;
  const result = await deps.store.batches.deleteFile(c.get("auth").workspaceId, id);
  if (result.deleted) return c.json({ id, object: "file", deleted: true }, 200);
  // The batch's results are translated against its input: the file stays until the batch has finished.
  if (result.runningBatchId) throw new GatewayError("invalid_request", `File ${id} is the input of batch ${result.runningBatchId}, which has not finished: delete it once the batch has finished (or been cancelled).`, { param: "file_id" });
  throw new GatewayError("not_found", `No file ${id}.`, { param: "file_id" });
}
