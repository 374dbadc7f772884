import { createImageEditRoute } from "../generated/routes.gen.ts";
import { imageAnswers, streamEndsAt } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";


/**
 * Image edits: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. The JSON form
 * (images by URL or file id) is validated and logged as sent. No guardrails:
 * a config that attaches them is refused (400). Priced per image, as generations.
 */
export const imageEditOperation = proxiedOperation(createImageEditRoute, {
  isStreamEnd: streamEndsAt("image_edit.completed"),
  answers: imageAnswers,
  genAiOperation: "generate_content",
  overrides: jsonFieldOverrides,
});

export const registerCreateImageEdit = proxiedRoute(createImageEditRoute, imageEditOperation);
