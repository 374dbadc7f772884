import { createUploadRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Starts a multipart upload.
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const createUploadOperation = proxiedOperation(createUploadRoute, {
  overrides: jsonFieldOverrides,
});

export const registerCreateUpload = proxiedRoute(createUploadRoute, createUploadOperation);
