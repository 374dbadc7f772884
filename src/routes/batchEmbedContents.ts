import { batchEmbedContentsRoute } from "../generated/routes.gen.ts";
import { alwaysCacheable } from "../operation/descriptor.ts";
import { batchEmbedContentsTranslation, embeddingsInputText, embeddingsRequestFromBatch, geminiAnswers } from "../families/google/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { geminiModel, googleRoute, translatedInput, withGoogleKey } from "./proxy/google-route.ts";

/**
 * The Gemini API's `batchEmbedContents` (what `@google/genai`'s `models.embedContent` calls): one
 * embeddings call with every request's text as one input, answered as `{embeddings: [{values}]}`
 * in the requests' order, with `usageMetadata`, which the log prices.
 */
export const batchEmbedContentsOperation = proxiedOperation(batchEmbedContentsRoute, {
  upstreamPath: { fixed: "/embeddings" },
  answers: geminiAnswers,
  cache: alwaysCacheable,
  genAiOperation: "embeddings",
  overrides: jsonFieldOverrides,
  translated: batchEmbedContentsTranslation,
  guardrails: { input: embeddingsInputText },
});

export const registerBatchEmbedContents = proxiedRoute(googleRoute(batchEmbedContentsRoute), batchEmbedContentsOperation, {
  prepare: async (c, input) => translatedInput(withGoogleKey(c, input), (body) => embeddingsRequestFromBatch(body, geminiModel(c, batchEmbedContentsRoute))),
});
