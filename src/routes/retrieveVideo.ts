import { retrieveVideoRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one video job; not priced again (the job was priced when created).
 * https://platform.openai.com/docs/api-reference/videos
 */
export const retrieveVideoOperation = proxiedOperation(retrieveVideoRoute, {
  answers: storedAnswers,
});

export const registerRetrieveVideo = proxiedRoute(retrieveVideoRoute, retrieveVideoOperation);
