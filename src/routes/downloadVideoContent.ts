import { downloadVideoContentRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/videos/{video_id}/content` a video's bytes (or its thumbnail or spritesheet, by `variant`), relayed as they arrive with the upstream's content type. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const downloadVideoContentOperation: OperationDescriptor = {
  id: "downloadVideoContent",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "as-sent",
  format: "stored",
};

export const registerDownloadVideoContent = proxiedRoute(downloadVideoContentRoute, downloadVideoContentOperation);
