import { createVideoEditRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/videos/edits` edits a finished video with a prompt: a new video job, priced per second of video by model and size like a created one (`media-cost.ts`). A JSON body is validated and logged as sent; a multipart form streams upstream as it arrives.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoEditOperation: OperationDescriptor = {
  id: "createVideoEdit",
  method: "POST",
  upstreamPath: { fixed: "/videos/edits" },
  body: "json-or-as-sent",
  answer: "json",
  format: "video",
  overrides: chatFieldOverrides,
};

export const registerCreateVideoEdit = proxiedRoute(createVideoEditRoute, createVideoEditOperation);
