import { createEmbeddingRoute } from "../generated/routes.gen.ts";
import { alwaysCacheable } from "../operation/descriptor.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * Embeddings: any answer may be cached; guardrails judge the strings to embed. The semantic
 * cache embeds its keys through this operation too (`GatewayDeps.embeddings`).
 * https://platform.openai.com/docs/api-reference/embeddings
 */
export const embeddingOperation = proxiedOperation(createEmbeddingRoute, {
  cache: alwaysCacheable,
  genAiOperation: "embeddings",
  overrides: jsonFieldOverrides,
  guardrails: { input: inputStrings },
});

export const registerCreateEmbedding = proxiedRoute(createEmbeddingRoute, embeddingOperation);

/** The strings to embed, joined by newlines; token arrays carry no text to judge. */
function inputStrings(body: JsonObject): string {
  const { input } = body;
  if (typeof input === "string") return input;
  return Array.isArray(input) ? input.filter((item): item is string => typeof item === "string").join("\n") : "";
}
