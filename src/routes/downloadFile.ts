import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { downloadFileRoute } from "../generated/routes.gen.ts";
import { isGatewayFileId } from "../batches/ids.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * A file's bytes, relayed as they arrive with the upstream's content type.
 * https://platform.openai.com/docs/api-reference/files
 */
export const downloadFileOperation = proxiedOperation(downloadFileRoute, {
  answer: "as-sent",
});

/** A file the gateway keeps (a batch's input, output or errors) is served from the store. */
export const registerDownloadFile = proxiedRoute(downloadFileRoute, downloadFileOperation, { answerFirst: keptContent });

async function keptContent(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("file_id") ?? "";
  if (!isGatewayFileId(id)) return null;
  const file = await deps.store.batches.getFile(c.get("auth").workspaceId, id);
  if (!file) throw new GatewayError("not_found", `No file ${id}.`, { param: "file_id" });
  return c.body(file.content, 200, { "content-type": "application/jsonl" });
}
