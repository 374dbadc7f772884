import { cancelUploadRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Cancels an upload.
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const cancelUploadOperation = proxiedOperation(cancelUploadRoute, {});

export const registerCancelUpload = proxiedRoute(cancelUploadRoute, cancelUploadOperation);
