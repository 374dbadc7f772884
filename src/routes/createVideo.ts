import { createVideoRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/videos` starts a video generation job: a JSON body is validated and logged as sent; a multipart form (with an image upload) streams upstream as it arrives, unread but for its small text fields (logged). Priced per second of video by model and size (`media-cost.ts`). Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoOperation: OperationDescriptor = {
  id: "createVideo",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json-or-as-sent",
  answer: "json",
  format: "video",
  overrides: chatFieldOverrides,
};

export const registerCreateVideo = proxiedRoute(createVideoRoute, createVideoOperation);
