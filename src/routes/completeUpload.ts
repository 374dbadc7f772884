import { completeUploadRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Completes an upload from its parts, in order.
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const completeUploadOperation = proxiedOperation(completeUploadRoute, {
  overrides: jsonFieldOverrides,
});

export const registerCompleteUpload = proxiedRoute(completeUploadRoute, completeUploadOperation);
