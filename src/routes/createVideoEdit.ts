import { createVideoEditRoute } from "../generated/routes.gen.ts";
import { videoAnswers } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Edits a finished video with a prompt: a new video job, priced per second of video by model and size like a created one (the media family, `families/media/`). A JSON body is validated and logged as sent; a multipart form streams upstream as it arrives.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoEditOperation = proxiedOperation(createVideoEditRoute, {
  answers: videoAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCreateVideoEdit = proxiedRoute(createVideoEditRoute, createVideoEditOperation);
