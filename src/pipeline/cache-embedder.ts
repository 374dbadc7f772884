import type { Embedder, EmbedderResult } from "../cache/semantic-lookup.ts";
import { fixedUpstream, transformsKey, type OperationDescriptor } from "../operation/descriptor.ts";
import { callUpstream, type FetchLike } from "../net/upstream-call.ts";
import { isUnusableAnswer, type JsonObject } from "../providers/provider.ts";
import type { Target } from "../operation/target.ts";
import { resolveTarget, type TargetResolverDeps } from "./target-resolution.ts";
import { buildUpstreamRequest } from "./upstream-request.ts";

/** What the semantic cache's embedding calls need: the embeddings operation, its budget, and the gateway's fetch. */
export interface CacheEmbeddingDeps extends TargetResolverDeps {
  fetch: FetchLike;
  /** The embeddings operation's descriptor (`createEmbedding`): the call goes through its provider transforms. */
  embeddings: OperationDescriptor;
  /** `GATEWAY_SEMANTIC_CACHE_EMBEDDING_TIMEOUT_MS`: the whole call, answer read included. */
  timeoutMs: number;
}

/** The most of an embedding answer read (a 3072-dimension vector as JSON is about 70 KB). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * The embedder of a config's `cache.embedding`: its virtual key resolved to a target as any
 * request's would be (the key's provider, sealed key and host, through the custom-host guard),
 * and each call sent through that provider's transforms of the embeddings operation. Never
 * throws: what fails is a reason for the log, and the request goes on uncached.
 */
export async function cacheEmbedder(embedding: { virtual_key: string; model: string }, workspaceId: string, deps: CacheEmbeddingDeps): Promise<EmbedderResult> {
  const target = await resolveTarget({ model: embedding.model, headers: {}, config: { virtualKey: embedding.virtual_key }, workspaceId }, deps);
  if (!target.ok) return { ok: false, reason: `the embedding target cannot be used: ${target.error.message}` };
  const embedder: Embedder = {
    identity: `${target.value.provider.id} ${target.value.baseUrl} ${target.value.model ?? ""}`,
    embed: (text) => embed(target.value, text, deps),
  };
  return { ok: true, embedder };
}

async function embed(target: Target, text: string, deps: CacheEmbeddingDeps): ReturnType<Embedder["embed"]> {
  const { embeddings } = deps;
  const body: JsonObject = { model: target.model, input: text };
  const request = await buildUpstreamRequest(embeddings, fixedUpstream(embeddings), target, { kind: "json", value: body }, false, {}, { fetch: deps.fetch });
  if (!request.ok) return { ok: false, reason: `the embedding request cannot be built: ${request.error.message}` };
  const call = await callUpstream(request.value, { timeoutMs: deps.timeoutMs, fetch: deps.fetch, providerName: target.provider.name });
  if (!call.ok) return { ok: false, reason: failure(call.error.code, call.error.message, deps.timeoutMs) };
  let answerText: string;
  try {
    const length = Number(call.value.response.headers.get("content-length") ?? "0");
    if (length > MAX_ANSWER_BYTES) throw new RangeError("answer too large");
    answerText = await call.value.response.text();
  } catch (error) {
    call.value.abort();
    const classified = call.value.classify(error);
    return { ok: false, reason: failure(classified.code, classified.message, deps.timeoutMs) };
  } finally {
    call.value.done();
  }
  const status = call.value.response.status;
  if (status < 200 || status >= 300) return { ok: false, reason: `the embedding target answered ${status}` };
  let answer: unknown;
  try {
    answer = JSON.parse(answerText);
  } catch {
    return { ok: false, reason: "the embedding target answered with a body that is not JSON" };
  }
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return { ok: false, reason: "the embedding target answered with no embedding" };
  const transforms = target.provider.operations[transformsKey(embeddings)];
  const read = transforms?.response ? transforms.response(answer as JsonObject, { clientBody: body, model: target.model ?? "" }) : (answer as JsonObject);
  const vector = isUnusableAnswer(read) ? null : firstEmbedding(read);
  return vector ? { ok: true, vector } : { ok: false, reason: "the embedding target answered with no embedding" };
}

function failure(code: string, message: string, timeoutMs: number): string {
  return code === "request_timeout" ? `the embedding target did not answer within ${timeoutMs} ms` : `the embedding call failed: ${message}`;
}

/**
 * `data[0].embedding` of an OpenAI-format answer, as the float64 numbers it holds; null when it
 * is missing, empty or not all numbers. Whether the cache can use them (dimensions, range at the
 * index's precision, norm) is the cache's check (`checkVector`), which names what is wrong.
 */
function firstEmbedding(answer: JsonObject): Float64Array | null {
  const data = answer.data;
  const first = Array.isArray(data) ? data[0] : undefined;
  const values = typeof first === "object" && first !== null && !Array.isArray(first) ? (first as JsonObject).embedding : undefined;
  if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === "number")) return null;
  return Float64Array.from(values as number[]);
}
