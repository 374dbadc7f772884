import { embedContentRoute } from "../generated/routes.gen.ts";
import { alwaysCacheable } from "../operation/descriptor.ts";
import { embedContentTranslation, embeddingsInputText, embeddingsRequestFromEmbedContent, geminiAnswers } from "../families/google/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { geminiModel, googleRoute, translatedInput, withGoogleKey } from "./proxy/google-route.ts";

/**
 * The Gemini API's `embedContent`, translated into embeddings (`POST /v1/embeddings`) and its
 * answer back into `{embedding: {values}}` with `usageMetadata`, which the log prices. Any answer
 * may be cached; input guardrails judge the text to embed.
 */
export const embedContentOperation = proxiedOperation(embedContentRoute, {
  upstreamPath: { fixed: "/embeddings" },
  answers: geminiAnswers,
  cache: alwaysCacheable,
  genAiOperation: "embeddings",
  overrides: jsonFieldOverrides,
  translated: embedContentTranslation,
  guardrails: { input: embeddingsInputText },
});

export const registerEmbedContent = proxiedRoute(googleRoute(embedContentRoute), embedContentOperation, {
  prepare: async (c, input) => translatedInput(withGoogleKey(c, input), (body) => embeddingsRequestFromEmbedContent(body, geminiModel(c, embedContentRoute))),
});
