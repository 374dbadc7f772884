import { streamGenerateContentRoute } from "../generated/routes.gen.ts";
import { chatRequestFromGemini } from "../families/google/index.ts";
import { generateContentMeaning } from "./generateContent.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { geminiModel, googleRoute, translatedInput, withGoogleKey } from "./proxy/google-route.ts";

/**
 * `:generateContent` streamed (`alt=sse`, which the document requires): the chat completion is
 * asked to stream, and its chunks become Gemini's events (`families/google/stream.ts`).
 */
export const streamGenerateContentOperation = proxiedOperation(streamGenerateContentRoute, generateContentMeaning);

export const registerStreamGenerateContent = proxiedRoute(googleRoute(streamGenerateContentRoute), streamGenerateContentOperation, {
  prepare: async (c, input) => translatedInput(withGoogleKey(c, input), (body) => chatRequestFromGemini(body, { model: geminiModel(c, streamGenerateContentRoute), stream: true })),
});
