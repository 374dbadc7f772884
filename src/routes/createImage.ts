import { createImageRoute } from "../generated/routes.gen.ts";
import { imageAnswers, streamEndsAt } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

import type { JsonObject } from "../providers/provider.ts";

/**
 * Image generation: the prompt is what input guardrails judge; the log prices each image by
 * model, size and quality (`image` format).
 */
export const imageOperation = proxiedOperation(createImageRoute, {
  isStreamEnd: streamEndsAt("image_generation.completed"),
  answers: imageAnswers,
  genAiOperation: "generate_content",
  overrides: jsonFieldOverrides,
  guardrails: { input: promptText },
});

export const registerCreateImage = proxiedRoute(createImageRoute, imageOperation);

/** The `prompt` text; without one there is nothing to judge. */
function promptText(body: JsonObject): string {
  return typeof body.prompt === "string" ? body.prompt : "";
}
