import { downloadVideoContentRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * A video's bytes (or its thumbnail or spritesheet, by `variant`), relayed as they arrive with the upstream's content type.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const downloadVideoContentOperation = proxiedOperation(downloadVideoContentRoute, {
  answer: "as-sent",
  answers: storedAnswers,
});

export const registerDownloadVideoContent = proxiedRoute(downloadVideoContentRoute, downloadVideoContentOperation);
