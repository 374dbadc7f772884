import { createImageRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";
import { streamEndsAt } from "../streams/stream-end.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * Image generation: the prompt is what input guardrails judge; the log prices each image by
 * model, size and quality (`image` format).
 */
export const imageOperation: OperationDescriptor = {
  id: "createImage",
  method: "POST",
  upstreamPath: { fixed: "/images/generations" },
  body: "json",
  answer: "json",
  isStreamEnd: streamEndsAt("image_generation.completed"),
  format: "image",
  genAiOperation: "generate_content",
  overrides: chatFieldOverrides,
  guardrails: { input: promptText },
};

export const registerCreateImage = proxiedRoute(createImageRoute, imageOperation);

/** The `prompt` text; without one there is nothing to judge. */
function promptText(body: JsonObject): string {
  return typeof body.prompt === "string" ? body.prompt : "";
}
