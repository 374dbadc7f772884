import { deleteVideoRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Deletes a video and its assets.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const deleteVideoOperation = proxiedOperation(deleteVideoRoute, {
  answers: storedAnswers,
});

export const registerDeleteVideo = proxiedRoute(deleteVideoRoute, deleteVideoOperation);
