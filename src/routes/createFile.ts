import { createFileRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/files` uploads a file: the multipart form streams upstream as it arrives, unread and unlogged. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/files
 */
export const createFileOperation: OperationDescriptor = {
  id: "createFile",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "json",
};

export const registerCreateFile = proxiedRoute(createFileRoute, createFileOperation);
