import { deleteVideoRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `DELETE /v1/videos/{video_id}` deletes a video and its assets. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const deleteVideoOperation: OperationDescriptor = {
  id: "deleteVideo",
  method: "DELETE",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerDeleteVideo = proxiedRoute(deleteVideoRoute, deleteVideoOperation);
