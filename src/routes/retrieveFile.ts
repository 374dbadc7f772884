import { retrieveFileRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/files/{file_id}` describes one file. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/files
 */
export const retrieveFileOperation: OperationDescriptor = {
  id: "retrieveFile",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerRetrieveFile = proxiedRoute(retrieveFileRoute, retrieveFileOperation);
