import type { OperationDescriptor } from "../../operation/descriptor.ts";
import { alwaysCacheable } from "../../cache/cacheable.ts";
import { chatFieldOverrides } from "../../pipeline/config-overrides.ts";
import type { JsonObject } from "../../providers/provider.ts";

/**
 * The embeddings operation, apart from its route: the semantic cache's embedding calls go
 * through it too (`pipeline/cache-embedder.ts`), handed over by `proxyDeps`.
 */
export const embeddingOperation: OperationDescriptor = {
  id: "createEmbedding",
  method: "POST",
  upstreamPath: { fixed: "/embeddings" },
  body: "json",
  answer: "json",
  format: "json",
  cache: alwaysCacheable,
  genAiOperation: "embeddings",
  overrides: chatFieldOverrides,
  guardrails: { input: inputStrings },
};

/** The strings to embed, joined by newlines; token arrays carry no text to judge. */
function inputStrings(body: JsonObject): string {
  const { input } = body;
  if (typeof input === "string") return input;
  return Array.isArray(input) ? input.filter((item): item is string => typeof item === "string").join("\n") : "";
}
