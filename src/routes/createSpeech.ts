import { createSpeechRoute } from "../generated/routes.gen.ts";
import { speechAnswers, streamEndsAt } from "../families/media/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

import type { JsonObject } from "../providers/provider.ts";

/**
 * Text to speech: the audio is relayed to the client as it arrives (`answer: "as-sent"`); the log
 * keeps its content type and size, and prices the input's characters (`speech` format).
 */
export const speechOperation = proxiedOperation(createSpeechRoute, {
  answer: "as-sent",
  isStreamEnd: streamEndsAt("speech.audio.done"),
  answers: speechAnswers,
  genAiOperation: "generate_content",
  overrides: jsonFieldOverrides,
  guardrails: { input: inputText },
});

export const registerCreateSpeech = proxiedRoute(createSpeechRoute, speechOperation);

/** The `input` text; without one there is nothing to judge. */
function inputText(body: JsonObject): string {
  return typeof body.input === "string" ? body.input : "";
}
