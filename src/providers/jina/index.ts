/**
 * Jina AI's Reranker API (`POST /v1/rerank`): documents as strings or `{text}` objects, as the
 * gateway takes them; billed per token (`usage.total_tokens`). Jina returns documents unless told
 * not to, so `return_documents` is always sent, false unless the client asked.
 * https://jina.ai/reranker/
 */
import { countOf, otherFields, rankedDocuments, rerankAnswer, rerankProvider } from "../rerank.ts";
import type { JsonObject } from "../provider.ts";

export const jinaProvider = rerankProvider({
  id: "jina",
  name: "Jina AI",
  baseUrl: "https://api.jina.ai/v1",
  docs: "https://jina.ai/reranker/",
  rerank: {
    request(body, { model }) {
      const sent: JsonObject = { ...otherFields(body), model, query: body.query, documents: body.documents, return_documents: body.return_documents === true };
      if (body.top_n !== undefined) sent.top_n = body.top_n;
      return { body: sent };
    },
    response(answer, context) {
      const tokens = countOf((answer.usage as JsonObject | undefined)?.total_tokens);
      return rerankAnswer(rankedDocuments(answer.results), { id: answer.id, model: answer.model, usage: tokens === undefined ? {} : { total_tokens: tokens } }, context);
    },
  },
});
