/**
 * The gateway's rerank format, and what the rerank providers' transforms share (pure). A request
 * is `{model, query, documents, top_n, return_documents}`, documents strings or objects with
 * `text`; an answer is `{id?, object: "rerank", model, results: [{index, relevance_score,
 * document?}], usage: {total_tokens?, search_units?}}`, the most relevant first. Providers that
 * return no documents get them from the request when the client asked (`return_documents`).
 * https://docs.cohere.com/reference/rerank
 * https://jina.ai/reranker/
 * https://docs.voyageai.com/reference/reranker-api
 */
import { GatewayError } from "../errors.ts";
import { openaiSseProtocol } from "../streams/stream-protocol.ts";
import { authorizeBearer } from "./openai/auth.ts";
import type { JsonObject, OperationTransforms, Provider } from "./provider.ts";

/** The operation's id (its route file is `routes/createRerank.ts`): the key of a provider's rerank transforms. */
export const RERANK_OPERATION = "createRerank";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The request's documents as strings, or the 400 naming the first that has no text. */
export function documentTexts(body: JsonObject): string[] | GatewayError {
  const documents = Array.isArray(body.documents) ? body.documents : [];
  const texts: string[] = [];
  for (const [index, document] of documents.entries()) {
    if (typeof document === "string") texts.push(document);
    else if (isObject(document) && typeof document.text === "string") texts.push(document.text);
    else return new GatewayError("invalid_request", "A document is a string or an object with `text`.", { param: `documents[${index}]` });
  }
  return texts;
}

/** The body's fields the gateway's format does not name (a provider's own), to pass on untouched. */
export function otherFields(body: JsonObject): JsonObject {
  const { model: _model, query: _query, documents: _documents, top_n: _topN, return_documents: _returnDocuments, ...rest } = body;
  return rest;
}

/** One ranked document as the provider gave it: its index, score and, maybe, its text. */
export interface RankedDocument {
  index: number;
  relevance_score: number;
  text?: string;
}

/**
 * The gateway's answer from the provider's ranking: documents attached when the client asked
 * for them (from the provider's answer, else from the request), left out otherwise.
 */
export function rerankAnswer(
  ranked: readonly RankedDocument[],
  answer: { id?: unknown; model?: unknown; usage: { total_tokens?: number; search_units?: number } },
  context: { clientBody: JsonObject; model: string },
): JsonObject {
  const wanted = context.clientBody.return_documents === true;
  const sent = wanted ? documentTexts(context.clientBody) : [];
  const texts = Array.isArray(sent) ? sent : [];
  const results = ranked.map(({ index, relevance_score, text }) => {
    const result: JsonObject = { index, relevance_score };
    const document = text ?? texts[index];
    if (wanted && document !== undefined) result.document = { text: document };
    return result;
  });
  return {
    ...(typeof answer.id === "string" ? { id: answer.id } : {}),
    object: "rerank",
    model: typeof answer.model === "string" && answer.model ? answer.model : context.model,
    results,
    usage: answer.usage,
  };
}

/** The ranked documents of a provider's list (`results` or `data`), each read leniently; a document may be a string or `{text}`. */
export function rankedDocuments(list: unknown): RankedDocument[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((item) => {
    const document = item.document;
    const text = typeof document === "string" ? document : isObject(document) && typeof document.text === "string" ? document.text : undefined;
    return { index: Number(item.index), relevance_score: Number(item.relevance_score), ...(text === undefined ? {} : { text }) };
  });
}

/** A whole non-negative count, or undefined. */
export function countOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * A rerank provider's error answer: `{"message"}` (Cohere), `{"detail"}` (Jina, Voyage; a
 * string or FastAPI's list of `{msg}`), or OpenAI's envelope, as the gateway's error with the
 * provider's status. Never throws.
 */
export function rerankProviderError(status: number, text: string, provider: string, headers: Readonly<Record<string, string>>): GatewayError {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the text is the message.
  }
  const body = isObject(parsed) ? parsed : {};
  const nested = isObject(body.error) ? body.error.message : typeof body.error === "string" ? body.error : undefined;
  const detail = Array.isArray(body.detail) ? body.detail.map((item) => (isObject(item) && typeof item.msg === "string" ? item.msg : "")).filter(Boolean).join("; ") : body.detail;
  const found = [nested, body.message, detail].find((value): value is string => typeof value === "string" && value.length > 0);
  const snippet = text.trim().slice(0, 500);
  const message = found ?? (snippet ? `${provider} returned HTTP ${status}: ${snippet}` : `${provider} returned HTTP ${status}`);
  return new GatewayError("upstream_error", message, { status, upstream: { type: "upstream_error", code: null }, headers });
}

/** A provider that serves the gateway's rerank operation only, with its transforms, a bearer key and the error shapes above. */
export function rerankProvider(spec: { id: string; name: string; baseUrl: string; docs: string; rerank: OperationTransforms }): Provider {
  return {
    id: spec.id,
    name: spec.name,
    baseUrl: spec.baseUrl,
    docs: spec.docs,
    openaiFormat: false,
    operations: { [RERANK_OPERATION]: spec.rerank },
    // Rerank answers are never streamed; the protocol is the one every JSON provider has.
    streamProtocol: openaiSseProtocol,
    authorize: authorizeBearer,
    error: (status, text, headers) => rerankProviderError(status, text, spec.name, headers),
  };
}
