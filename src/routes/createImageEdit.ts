import { createImageEditRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";
import { streamEndsAt } from "../streams/stream-end.ts";

/**
 * Image edits: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. The JSON form
 * (images by URL or file id) is validated and logged as sent. No guardrails:
 * a config that attaches them is refused (400). Priced per image, as generations.
 */
export const imageEditOperation: OperationDescriptor = {
  id: "createImageEdit",
  method: "POST",
  upstreamPath: { fixed: "/images/edits" },
  body: "json-or-as-sent",
  answer: "json",
  isStreamEnd: streamEndsAt("image_edit.completed"),
  format: "image",
  genAiOperation: "generate_content",
  overrides: chatFieldOverrides,
};

export const registerCreateImageEdit = proxiedRoute(createImageEditRoute, imageEditOperation);
