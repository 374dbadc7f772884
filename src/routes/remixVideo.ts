import { remixVideoRoute } from "../generated/routes.gen.ts";
import { videoAnswers } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Starts a new job from a finished video with a new prompt, priced like a created job.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const remixVideoOperation = proxiedOperation(remixVideoRoute, {
  answers: videoAnswers,
  overrides: jsonFieldOverrides,
});

export const registerRemixVideo = proxiedRoute(remixVideoRoute, remixVideoOperation);
