import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { createFileRoute } from "../generated/routes.gen.ts";
import { isoNow } from "../lib/ids.ts";
import { newFileId } from "../batches/ids.ts";
import { fileObject } from "../batches/views.ts";
import { batchProviderTarget } from "./batches/unified.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Uploads a file: the multipart form streams upstream as it arrives, unread and unlogged.
 * https://platform.openai.com/docs/api-reference/files
 */
export const createFileOperation = proxiedOperation(createFileRoute, {});

/**
 * A provider whose own batch API the gateway drives keeps no OpenAI files: the gateway keeps a
 * batch input file itself, for a batch to read (`batches/`).
 */
export const registerCreateFile = proxiedRoute(createFileRoute, createFileOperation, { answerFirst: keptBatchFile });

async function keptBatchFile(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const target = await batchProviderTarget(c, deps, createFileRoute.operationId);
  if (!target) return null;
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw new GatewayError("invalid_request", "The body is not a multipart form.", { param: "file" });
  }
  const purpose = form.get("purpose");
  if (purpose !== "batch") {
    throw new GatewayError("invalid_request", `The gateway keeps files for ${target.provider.name} batches only: purpose must be batch.`, { param: "purpose" });
  }
  const file = form.get("file");
  if (typeof file === "string" || file === null) throw new GatewayError("invalid_request", "The form has no file.", { param: "file" });
  const bytes = new Uint8Array(await file.arrayBuffer());
  let content: string;
  try {
    content = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new GatewayError("invalid_request", "A batch input file is JSONL text in UTF-8.", { param: "file" });
  }
  const kept = { workspaceId: c.get("auth").workspaceId, id: newFileId(), purpose, filename: file.name || "input.jsonl", bytes: bytes.byteLength, content, createdAt: isoNow() };
  await deps.store.batches.putFile(kept);
  return c.json(fileObject(kept), 200);
}
