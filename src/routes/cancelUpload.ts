import { cancelUploadRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/uploads/{upload_id}/cancel` cancels an upload. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const cancelUploadOperation: OperationDescriptor = {
  id: "cancelUpload",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "json",
};

export const registerCancelUpload = proxiedRoute(cancelUploadRoute, cancelUploadOperation);
