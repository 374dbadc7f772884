import { addUploadPartRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Adds a part to an upload: the multipart form streams upstream as it arrives, unread and unlogged.
 * https://platform.openai.com/docs/api-reference/uploads
 */
export const addUploadPartOperation = proxiedOperation(addUploadPartRoute, {});

export const registerAddUploadPart = proxiedRoute(addUploadPartRoute, addUploadPartOperation);
