import type { OperationDescriptor } from "../operation/descriptor.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import type { Target } from "../operation/target.ts";
import type { JsonObject } from "../providers/provider.ts";
import type { AnswerStore } from "./answer-store.ts";
import { captureBody, cacheableEvents } from "./answer-capture.ts";
import { answerShapingHeaders } from "../net/header-rules.ts";
import { cacheKey, type CacheKeyParts } from "./cache-key.ts";
import { replayAnswer, type Replayed } from "./cache-replay.ts";
import { cacheMaxAgeSeconds, type ConfigCacheSettings } from "./cache-settings.ts";
import type { CachedAnswer } from "./cached-answer.ts";
import { isCacheable } from "../operation/descriptor.ts";
import type { CacheStatus } from "../records/log-record.ts";
import type { SemanticCache } from "./semantic-cache.ts";
import { semanticLookup, type EmbedderResult, type SemanticOutcome } from "./semantic-lookup.ts";

/** `x-gateway-cache-status` on every proxied answer. */
export const CACHE_STATUS_HEADER = "x-gateway-cache-status";

/** The gateway's answer cache: where answers live, and the largest one kept. */
export interface AnswerCache {
  store: AnswerStore;
  /** `GATEWAY_CACHE_MAX_ENTRY_BYTES`. */
  maxEntryBytes: number;
  /** Answers found by meaning (`mode: semantic`); null serves exact matches only. */
  semantic: SemanticCache | null;
}

/** What the cache reads of one of the routing loop's candidates. */
export interface CacheCandidate {
  target: Target;
  settings: { overrideParams?: Record<string, unknown> };
}

export interface CacheRequest {
  operation: OperationDescriptor;
  /** Where the request goes under the provider's base URL (resolved from the operation's rule). */
  upstreamPath: string;
  /** The config's `cache`, if it has one. */
  settings: ConfigCacheSettings | undefined;
  /** The routing loop's candidates, in order: each target and the config's overrides for it are part of the key. */
  candidates: readonly CacheCandidate[];
  /** The JSON body as it goes upstream; null for any other body (never cached). */
  body: JsonObject | null;
  /** The client's exact text of `body`, when `body` is that text parsed (no override changed it). */
  bodyText?: string;
  forwardedHeaders: Readonly<Record<string, string>> | undefined;
  workspaceId: string;
  /** `x-gateway-cache-force-refresh: true`. */
  forceRefresh: boolean;
  /** `x-gateway-cache-namespace`. */
  namespace: string | undefined;
  /** Guardrails run on this request: its answer carries this request's `hook_results`. */
  guarded: boolean;
  maxLoggedBytes: number;
  /** This request's log id: a stored answer names it, so a hit's log can name its source. */
  logId: string | null;
  /**
   * The embedder of the config's `cache.embedding` (`mode: semantic`), or why there is none;
   * called only after the exact lookup missed. Null for other modes.
   */
  embedder: (() => Promise<EmbedderResult>) | null;
}

/** Who served an answer: what a cached copy names. */
export interface ServedBy {
  provider: string;
  model: string | null;
}

/** What the cache says about a request: its answer, or how to keep the upstream's. */
export interface CacheDecision {
  status: CacheStatus;
  /** A semantic hit's cosine similarity to the request it was cached for. */
  similarity: number | null;
  /** A hit's source: the log id of the request whose answer is served. */
  sourceLogId: string | null;
  /** Why the semantic lookup did not run (`cache_note`). */
  note: string | null;
  /** The cached answer (the upstream is not called); null on a miss. */
  hit: Replayed | null;
  /**
   * The upstream's answer, wrapped so that a 2xx one is stored once it is complete (a stream
   * when its last event passed); other answers pass untouched. Adds nothing to the response's way.
   */
  keep(response: ProxyResponse, served: ServedBy): ProxyResponse;
}

const PASS: CacheDecision["keep"] = (response) => response;
const DISABLED: CacheDecision = { status: "DISABLED", hit: null, keep: PASS, similarity: null, sourceLogId: null, note: null };

/**
 * Looks the request up (unless it forces a refresh) and says its cache status. Not cached
 * (`DISABLED`): a config without `cache`, an operation without a cache rule or a body its rule refuses,
 * a request that runs guardrails. Never throws: a store that fails is a miss.
 */
export async function consultCache(request: CacheRequest, cache: AnswerCache): Promise<CacheDecision> {
  const maxAge = cacheMaxAgeSeconds(request.settings);
  if (maxAge === null || request.guarded || !isCacheable(request.operation, request.body)) return DISABLED;
  const parts: CacheKeyParts = {
    workspaceId: request.workspaceId,
    namespace: request.namespace ?? "",
    operationId: request.operation.id,
    upstreamPath: request.upstreamPath,
    forwardedHeaders: answerShapingHeaders(request.forwardedHeaders ?? {}),
    targets: request.candidates.map((candidate) => candidate.target),
    targetOverrides: request.candidates.map((candidate) => candidate.settings.overrideParams),
    body: request.body ?? {},
    bodyText: request.bodyText,
  };
  const key = cacheKey(parts);
  if (!request.forceRefresh) {
    const found = await cache.store.get(key);
    if (found) return { status: "HIT", hit: replayAnswer(found, request.maxLoggedBytes), keep: PASS, similarity: null, sourceLogId: found.logId ?? null, note: null };
  }
  const semantic =
    cache.semantic && request.embedder
      ? await semanticLookup(
          { operation: request.operation, settings: request.settings!, body: parts.body, parts, embedder: await request.embedder(), forceRefresh: request.forceRefresh },
          cache.semantic,
        )
      : null;
  if (semantic?.hit) {
    const { entry, similarity } = semantic.hit;
    return { status: "SEMANTIC_HIT", hit: replayAnswer(entry.answer, request.maxLoggedBytes), keep: PASS, similarity, sourceLogId: entry.logId, note: null };
  }
  return {
    status: request.forceRefresh ? "REFRESH" : "MISS",
    hit: null,
    keep: (response, served) => storeOnCompletion(response, served, key, maxAge, request, cache, semantic),
    similarity: null,
    sourceLogId: null,
    note: semantic?.note ?? null,
  };
}

function storeOnCompletion(
  response: ProxyResponse,
  served: ServedBy,
  key: string,
  maxAge: number,
  request: CacheRequest,
  cache: AnswerCache,
  semantic: SemanticOutcome | null,
): ProxyResponse {
  const { status, headers, body } = response;
  if (status < 200 || status >= 300) return response;
  const save = (answer: (provider: string, model: string | null) => CachedAnswer | null): void => {
    const built = answer(served.provider, served.model);
    if (!built) return dropped();
    const kept: CachedAnswer = { ...built, logId: request.logId };
    void cache.store.set(key, kept, maxAge);
    // The vector the lookup computed: the write costs no second embedding call.
    const placement = semantic?.placement;
    if (placement && cache.semantic) {
      void cache.semantic.put({ id: key, workspaceId: request.workspaceId, ...placement, answer: kept, logId: request.logId, ttlSeconds: maxAge });
    }
  };
  // A forced refresh whose answer is not kept leaves no older answer behind it.
  const dropped = (): void => {
    if (request.forceRefresh) void cache.store.delete(key);
  };
  const contentType = headers["content-type"] ?? "application/json";
  const stream = contentType.startsWith("text/event-stream");
  if (typeof body === "string") {
    if (Buffer.byteLength(body, "utf8") <= cache.maxEntryBytes) save((provider, model) => ({ kind: "json", status, contentType, provider, model, body }));
    else dropped();
    return response;
  }
  const captured = captureBody(
    body,
    cache.maxEntryBytes,
    (text) =>
      save((provider, model) => {
        if (!stream) return { kind: "json", status, contentType, provider, model, body: text };
        const events = cacheableEvents(text);
        return events ? { kind: "sse", status, provider, model, events } : null;
      }),
    dropped,
  );
  return { ...response, body: captured };
}
