import { createVideoExtensionRoute } from "../generated/routes.gen.ts";
import { videoAnswers } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Extends a finished video with a new segment: a new video job, priced per second of video by model and size like a created one (the media family, `families/media/`). A JSON body is validated and logged as sent; a multipart form streams upstream as it arrives.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoExtensionOperation = proxiedOperation(createVideoExtensionRoute, {
  answers: videoAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCreateVideoExtension = proxiedRoute(createVideoExtensionRoute, createVideoExtensionOperation);
