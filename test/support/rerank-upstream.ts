/**
 * A local stand-in for the rerank providers, answering in each one's documented shape (aimock
 * speaks only Cohere's, and bills no search units): Cohere's `POST /v2/rerank` under `/cohere`,
 * Jina's and Voyage's `POST /v1/rerank` under `/jina` and `/voyage`, and an OpenAI-compatible
 * server's (vLLM's, Jina's shape) under `/vllm/v1`, and Bedrock's InvokeModel for Cohere Rerank
 * (`/model/{model}/invoke`, signed with SigV4) under `/bedrock`. Each checks the request as its API would and
 * answers 400 in its own error shape when it is not; the query `overloaded` gets a 429.
 * https://docs.cohere.com/reference/rerank
 * https://jina.ai/reranker/
 * https://docs.voyageai.com/reference/reranker-api
 */
import { startRecordingUpstream, type Answer, type ReceivedRequest, type RecordingUpstream } from "./recording-upstream.ts";

type Body = Record<string, unknown>;

/** Documents scored by the share of their words the query has, the most relevant first. */
export function ranking(query: string, documents: readonly string[]): Array<{ index: number; relevance_score: number }> {
  const words = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
  return documents
    .map((document, index) => {
      const own = document.toLowerCase().split(/\W+/).filter(Boolean);
      const score = own.length === 0 ? 0 : own.filter((word) => words.has(word)).length / own.length;
      return { index, relevance_score: Math.round(score * 1e6) / 1e6 };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
}

/** Tokens as these stand-ins count them: words of the query and of every document. */
export function tokensOf(query: string, documents: readonly string[]): number {
  return [query, ...documents].join(" ").split(/\s+/).filter(Boolean).length;
}

const json = (status: number, body: unknown): Answer => ({ status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

function cohere(body: Body): Answer {
  if (typeof body.model !== "string" || typeof body.query !== "string" || !strings(body.documents)) return json(400, { message: "invalid request: model, query and documents (strings) are required" });
  if ("return_documents" in body || "top_k" in body) return json(400, { message: "invalid request: unknown field" });
  if (body.query === "overloaded") return json(429, { message: "You are using a Trial key, which is limited to 10 API calls / minute." });
  const ranked = ranking(body.query, body.documents).slice(0, typeof body.top_n === "number" ? body.top_n : undefined);
  return json(200, { id: "cohere-rerank-1", results: ranked, meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } } });
}

function jina(body: Body): Answer {
  const texts = Array.isArray(body.documents) ? body.documents.map((item) => (typeof item === "string" ? item : (item as { text?: unknown })?.text)) : null;
  if (typeof body.model !== "string" || typeof body.query !== "string" || !strings(texts)) return json(422, { detail: [{ loc: ["body", "documents"], msg: "field required", type: "value_error" }] });
  if (body.query === "overloaded") return json(429, { detail: "Rate limit exceeded" });
  const ranked = ranking(body.query, texts).slice(0, typeof body.top_n === "number" ? body.top_n : undefined);
  // Jina returns the documents unless told not to.
  const results = ranked.map((result) => (body.return_documents === false ? result : { ...result, document: { text: texts[result.index] } }));
  return json(200, { model: body.model, usage: { total_tokens: tokensOf(body.query, texts) }, results });
}

function voyage(body: Body): Answer {
  if (typeof body.model !== "string" || typeof body.query !== "string" || !strings(body.documents)) return json(400, { detail: "Request body is invalid: documents must be a list of strings." });
  if ("top_n" in body) return json(400, { detail: "Request body is invalid: unexpected field top_n." });
  if (body.query === "overloaded") return json(429, { detail: "You have exceeded the rate limit." });
  const documents = body.documents;
  const ranked = ranking(body.query, documents).slice(0, typeof body.top_k === "number" ? body.top_k : undefined);
  const data = ranked.map((result) => (body.return_documents === true ? { ...result, document: documents[result.index] } : result));
  return json(200, { object: "list", data, model: body.model, usage: { total_tokens: tokensOf(body.query, documents) } });
}

function bedrock(body: Body): Answer {
  if (body.api_version !== 2 || typeof body.query !== "string" || !strings(body.documents) || "model" in body) return json(400, { message: "Malformed input request, please reformat your input and try again." });
  if (body.query === "overloaded") return { status: 429, headers: { "content-type": "application/json", "x-amzn-errortype": "ThrottlingException" }, body: JSON.stringify({ message: "Too many requests, please wait before trying again." }) };
  const ranked = ranking(body.query, body.documents).slice(0, typeof body.top_n === "number" ? body.top_n : undefined);
  return json(200, { id: "bedrock-rerank-1", results: ranked });
}

function vllm(body: Body): Answer {
  const texts = Array.isArray(body.documents) ? body.documents : [];
  if (!strings(texts) || typeof body.query !== "string") return json(400, { error: { message: "documents must be strings", type: "BadRequestError", code: 400 } });
  const results = ranking(body.query, texts).map((result) => ({ ...result, document: { text: texts[result.index] } }));
  return json(200, { id: "rerank-vllm-1", model: body.model, usage: { total_tokens: tokensOf(body.query, texts) }, results });
}

const ROUTES: Record<string, (body: Body) => Answer> = {
  "/cohere/v2/rerank": cohere,
  "/jina/v1/rerank": jina,
  "/voyage/v1/rerank": voyage,
  "/vllm/v1/rerank": vllm,
  "/bedrock/model/cohere.rerank-v3-5%3A0/invoke": bedrock,
};

export interface RerankUpstream extends RecordingUpstream {
  /** The stand-in's origin, without a path. */
  origin: string;
  /** The last request's JSON body. */
  lastBody(): Body;
}

export async function startRerankUpstream(): Promise<RerankUpstream> {
  const upstream = await startRecordingUpstream((request: ReceivedRequest) => {
    const route = ROUTES[request.path];
    if (request.method !== "POST" || !route) return json(404, { message: `no route ${request.method} ${request.path}` });
    const scheme = request.path.startsWith("/bedrock/") ? "AWS4-HMAC-SHA256 " : "Bearer ";
    if (!request.headers.authorization?.startsWith(scheme)) return json(401, { message: "no api key" });
    return route(JSON.parse(request.body.toString("utf8")) as Body);
  });
  return {
    ...upstream,
    origin: new URL(upstream.url).origin,
    lastBody: () => JSON.parse(upstream.received.at(-1)!.body.toString("utf8")) as Body,
  };
}
