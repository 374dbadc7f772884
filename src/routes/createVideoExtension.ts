import { createVideoExtensionRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/videos/extensions` extends a finished video with a new segment: a new video job, priced per second of video by model and size like a created one (`media-cost.ts`). A JSON body is validated and logged as sent; a multipart form streams upstream as it arrives.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoExtensionOperation: OperationDescriptor = {
  id: "createVideoExtension",
  method: "POST",
  upstreamPath: { fixed: "/videos/extensions" },
  body: "json-or-as-sent",
  answer: "json",
  format: "video",
  overrides: chatFieldOverrides,
};

export const registerCreateVideoExtension = proxiedRoute(createVideoExtensionRoute, createVideoExtensionOperation);
