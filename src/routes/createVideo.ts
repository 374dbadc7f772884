import { createVideoRoute } from "../generated/routes.gen.ts";
import { videoAnswers } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Starts a video generation job: a JSON body is validated and logged as sent; a multipart form (with an image upload) streams upstream as it arrives, unread but for its small text fields (logged). Priced per second of video by model and size (the media family, `families/media/`).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const createVideoOperation = proxiedOperation(createVideoRoute, {
  answers: videoAnswers,
  overrides: jsonFieldOverrides,
});

export const registerCreateVideo = proxiedRoute(createVideoRoute, createVideoOperation);
