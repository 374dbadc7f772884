import { createRerankRoute } from "../generated/routes.gen.ts";
import { rerankAnswers, rerankCacheRule, rerankInputText } from "../families/rerank/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Rerank: documents ranked by relevance to a query. Each rerank provider's transforms speak its
 * own API (`providers/cohere`, `jina`, `voyage`); the log reads and prices the ranking by what the
 * provider bills (the rerank family); answers are cached like embeddings; input guardrails judge
 * the query and the documents.
 */
export const createRerankOperation = proxiedOperation(createRerankRoute, {
  answers: rerankAnswers,
  cache: rerankCacheRule,
  overrides: jsonFieldOverrides,
  guardrails: { input: rerankInputText },
});

export const registerCreateRerank = proxiedRoute(createRerankRoute, createRerankOperation);
