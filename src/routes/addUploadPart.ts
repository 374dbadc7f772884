import { addUploadPartRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/uploads/{upload_id}/parts` adds a part to an upload: the multipart form streams upstream as it arrives, unread and unlogged. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const addUploadPartOperation: OperationDescriptor = {
  id: "addUploadPart",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "json",
};

export const registerAddUploadPart = proxiedRoute(addUploadPartRoute, addUploadPartOperation);
