import { deleteFileRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `DELETE /v1/files/{file_id}` deletes one file. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/files
 */
export const deleteFileOperation: OperationDescriptor = {
  id: "deleteFile",
  method: "DELETE",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerDeleteFile = proxiedRoute(deleteFileRoute, deleteFileOperation);
