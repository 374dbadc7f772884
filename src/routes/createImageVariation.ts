import { createImageVariationRoute } from "../generated/routes.gen.ts";
import { imageAnswers } from "../families/media/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Image variations: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. No guardrails:
 * a config that attaches them is refused (400). Priced per image, as generations.
 */
export const imageVariationOperation = proxiedOperation(createImageVariationRoute, {
  answers: imageAnswers,
  genAiOperation: "generate_content",
});

export const registerCreateImageVariation = proxiedRoute(createImageVariationRoute, imageVariationOperation);
