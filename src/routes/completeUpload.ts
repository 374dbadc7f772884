import { completeUploadRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/uploads/{upload_id}/complete` completes an upload from its parts, in order. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const completeUploadOperation: OperationDescriptor = {
  id: "completeUpload",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "json",
  overrides: chatFieldOverrides,
};

export const registerCompleteUpload = proxiedRoute(completeUploadRoute, completeUploadOperation);
