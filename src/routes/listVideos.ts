import { listVideosRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists the video jobs, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const listVideosOperation = proxiedOperation(listVideosRoute, {
  answers: storedAnswers,
});

export const registerListVideos = proxiedRoute(listVideosRoute, listVideosOperation);
