import { remixVideoRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `POST /v1/videos/{video_id}/remix` starts a new job from a finished video with a new prompt, priced like a created job. Sent to the path the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const remixVideoOperation: OperationDescriptor = {
  id: "remixVideo",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "json",
  answer: "json",
  format: "video",
  overrides: chatFieldOverrides,
};

export const registerRemixVideo = proxiedRoute(remixVideoRoute, remixVideoOperation);
