import { retrieveVideoRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/videos/{video_id}` describes one video job; not priced again (the job was priced when created). Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const retrieveVideoOperation: OperationDescriptor = {
  id: "retrieveVideo",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerRetrieveVideo = proxiedRoute(retrieveVideoRoute, retrieveVideoOperation);
