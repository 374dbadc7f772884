import { createSpeechRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";
import { streamEndsAt } from "../streams/stream-end.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * Text to speech: the audio is relayed to the client as it arrives (`answer: "as-sent"`); the log
 * keeps its content type and size, and prices the input's characters (`speech` format).
 */
export const speechOperation: OperationDescriptor = {
  id: "createSpeech",
  method: "POST",
  upstreamPath: { fixed: "/audio/speech" },
  body: "json",
  answer: "as-sent",
  isStreamEnd: streamEndsAt("speech.audio.done"),
  format: "speech",
  genAiOperation: "generate_content",
  overrides: chatFieldOverrides,
  guardrails: { input: inputText },
};

export const registerCreateSpeech = proxiedRoute(createSpeechRoute, speechOperation);

/** The `input` text; without one there is nothing to judge. */
function inputText(body: JsonObject): string {
  return typeof body.input === "string" ? body.input : "";
}
