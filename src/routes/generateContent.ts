import { generateContentRoute } from "../generated/routes.gen.ts";
import { alwaysCacheable, type OperationDescriptor } from "../operation/descriptor.ts";
import { chatRequestFromGemini, geminiAnswers, geminiFromChatTranslation, geminiInputText, geminiResponseText, geminiSemanticSplit, geminiStreamText } from "../families/google/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute, type OperationMeaning } from "./proxy/proxied-route.ts";
import { geminiModel, googleRoute, translatedInput, withGoogleKey } from "./proxy/google-route.ts";

/**
 * What generating content in the Gemini API's format means, streamed or not: the request is
 * translated into a chat completion, served as one by every provider's chat transforms, and its
 * answer translated back. The log keeps the request and the answer as the client sent and got
 * them. Any answer may be cached.
 */
export const generateContentMeaning: OperationMeaning = {
  upstreamPath: { fixed: "/chat/completions" },
  answers: geminiAnswers,
  cache: alwaysCacheable,
  semantic: geminiSemanticSplit,
  genAiOperation: "generate_content",
  overrides: jsonFieldOverrides,
  translated: geminiFromChatTranslation,
  // Input guardrails judge the chat body the core holds; output ones the Gemini answer.
  guardrails: { input: geminiInputText, output: geminiResponseText, streamOutput: geminiStreamText },
};

export const generateContentOperation: OperationDescriptor = proxiedOperation(generateContentRoute, generateContentMeaning);

export const registerGenerateContent = proxiedRoute(googleRoute(generateContentRoute), generateContentOperation, {
  prepare: async (c, input) => translatedInput(withGoogleKey(c, input), (body) => chatRequestFromGemini(body, { model: geminiModel(c, generateContentRoute), stream: false })),
});
