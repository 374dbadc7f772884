/**
 * Rerank on Bedrock through InvokeModel (pure): Cohere's Rerank models (`cohere.rerank-v3-5:0`)
 * take Cohere's body with `api_version: 2` at `/model/{model}/invoke` and answer `{id, results}`.
 * Bedrock bills per query of up to 100 documents, which the answer does not report: the gateway
 * counts them as search units (one per 100 documents sent). Amazon's own reranker is served only
 * by the Agent Runtime's Rerank API, on another host: it is refused with a 400 naming the model.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-cohere-rerank.html
 * https://aws.amazon.com/bedrock/pricing/
 */
import { GatewayError } from "../../errors.ts";
import type { OperationTransforms } from "../provider.ts";
import { documentTexts, otherFields, rankedDocuments, rerankAnswer } from "../rerank.ts";

const DOCUMENTS_PER_QUERY = 100;

export const bedrockRerank: OperationTransforms = {
  request(body, { model }) {
    if (!/(^|\.)cohere\.rerank-/.test(model)) {
      return { error: new GatewayError("invalid_request", `Bedrock reranks through InvokeModel with Cohere's Rerank models (such as cohere.rerank-v3-5:0); ${model.slice(0, 100)} is not one.`, { param: "model" }) };
    }
    const documents = documentTexts(body);
    if (!Array.isArray(documents)) return { error: documents };
    const sent = { ...otherFields(body), query: body.query, documents, ...(body.top_n === undefined ? {} : { top_n: body.top_n }), api_version: 2 };
    return { body: sent, path: `/model/${encodeURIComponent(model)}/invoke` };
  },
  response(answer, context) {
    const documents = documentTexts(context.clientBody);
    const queries = Array.isArray(documents) ? Math.max(1, Math.ceil(documents.length / DOCUMENTS_PER_QUERY)) : 1;
    return rerankAnswer(rankedDocuments(answer.results), { id: answer.id, usage: { search_units: queries } }, context);
  },
};
