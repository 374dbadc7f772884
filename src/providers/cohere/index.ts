/**
 * Cohere: reranking through its v2 Rerank API (`POST /v2/rerank`), documents as strings, billed
 * in search units (one query with up to 100 documents), which the answer reports in
 * `meta.billed_units.search_units`. v2 returns no documents: the gateway attaches them from the
 * request when the client asks.
 * https://docs.cohere.com/reference/rerank
 */
import { countOf, documentTexts, otherFields, rankedDocuments, rerankAnswer, rerankProvider } from "../rerank.ts";
import type { JsonObject } from "../provider.ts";

const field = (value: unknown, key: string): unknown => (value && typeof value === "object" ? (value as JsonObject)[key] : undefined);

export const cohereProvider = rerankProvider({
  id: "cohere",
  name: "Cohere",
  baseUrl: "https://api.cohere.com",
  docs: "https://docs.cohere.com/reference/rerank",
  rerank: {
    request(body, { model }) {
      const documents = documentTexts(body);
      if (!Array.isArray(documents)) return { error: documents };
      const sent: JsonObject = { ...otherFields(body), model, query: body.query, documents };
      if (body.top_n !== undefined) sent.top_n = body.top_n;
      return { body: sent, path: "/v2/rerank" };
    },
    response(answer, context) {
      const searchUnits = countOf(field(field(answer.meta, "billed_units"), "search_units"));
      return rerankAnswer(rankedDocuments(answer.results), { id: answer.id, usage: searchUnits === undefined ? {} : { search_units: searchUnits } }, context);
    },
  },
});
