import { listFilesRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/files` lists the upstream's files, with the query as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/files
 */
export const listFilesOperation: OperationDescriptor = {
  id: "listFiles",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerListFiles = proxiedRoute(listFilesRoute, listFilesOperation);
