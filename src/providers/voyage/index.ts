/**
 * Voyage AI's Reranker API (`POST /v1/rerank`): documents as strings, `top_k` for the gateway's
 * `top_n`, results in `data`; billed per token (`usage.total_tokens`).
 * https://docs.voyageai.com/reference/reranker-api
 */
import { countOf, documentTexts, otherFields, rankedDocuments, rerankAnswer, rerankProvider } from "../rerank.ts";
import type { JsonObject } from "../provider.ts";

export const voyageProvider = rerankProvider({
  id: "voyage",
  name: "Voyage AI",
  baseUrl: "https://api.voyageai.com/v1",
  docs: "https://docs.voyageai.com/reference/reranker-api",
  rerank: {
    request(body, { model }) {
      const documents = documentTexts(body);
      if (!Array.isArray(documents)) return { error: documents };
      const sent: JsonObject = { ...otherFields(body), model, query: body.query, documents, return_documents: body.return_documents === true };
      if (body.top_n !== undefined) sent.top_k = body.top_n;
      return { body: sent };
    },
    response(answer, context) {
      const tokens = countOf((answer.usage as JsonObject | undefined)?.total_tokens);
      return rerankAnswer(rankedDocuments(answer.data), { model: answer.model, usage: tokens === undefined ? {} : { total_tokens: tokens } }, context);
    },
  },
});
