import { downloadFileRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/files/{file_id}/content` a file's bytes, relayed as they arrive with the upstream's content type. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/files
 */
export const downloadFileOperation: OperationDescriptor = {
  id: "downloadFile",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "as-sent",
  format: "json",
};

export const registerDownloadFile = proxiedRoute(downloadFileRoute, downloadFileOperation);
