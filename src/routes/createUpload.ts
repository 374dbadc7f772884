import { createUploadRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/uploads` starts a multipart upload. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const createUploadOperation: OperationDescriptor = {
  id: "createUpload",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "json",
  overrides: chatFieldOverrides,
};

export const registerCreateUpload = proxiedRoute(createUploadRoute, createUploadOperation);
