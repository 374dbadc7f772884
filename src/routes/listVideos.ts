import { listVideosRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/videos` lists the video jobs, with the query as the client sent it. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const listVideosOperation: OperationDescriptor = {
  id: "listVideos",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerListVideos = proxiedRoute(listVideosRoute, listVideosOperation);
