import type { OperationDescriptor } from "../operation/descriptor.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import type { Target } from "../operation/target.ts";
import type { JsonObject } from "../providers/provider.ts";
import type { AnswerStore } from "./answer-store.ts";
import { captureBody, cacheableEvents } from "./answer-capture.ts";
import { answerShapingHeaders } from "../net/header-rules.ts";
import { cacheKey } from "./cache-key.ts";
import { replayAnswer, type Replayed } from "./cache-replay.ts";
import { cacheMaxAgeSeconds, type ConfigCacheSettings } from "./cache-settings.ts";
import type { CachedAnswer } from "./cached-answer.ts";
import { isCacheable } from "./cacheable.ts";
import type { CacheStatus } from "../records/log-record.ts";

/** `x-gateway-cache-status` on every proxied answer. */
export const CACHE_STATUS_HEADER = "x-gateway-cache-status";

/** The gateway's answer cache: where answers live, and the largest one kept. */
export interface AnswerCache {
  store: AnswerStore;
  /** `GATEWAY_CACHE_MAX_ENTRY_BYTES`. */
  maxEntryBytes: number;
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
  forwardedHeaders: Readonly<Record<string, string>> | undefined;
  workspaceId: string;
  /** `x-gateway-cache-force-refresh: true`. */
  forceRefresh: boolean;
  /** `x-gateway-cache-namespace`. */
  namespace: string | undefined;
  /** Guardrails run on this request: its answer carries this request's `hook_results`. */
  guarded: boolean;
  maxLoggedBytes: number;
}

/** Who served an answer: what a cached copy names. */
export interface ServedBy {
  provider: string;
  model: string | null;
}

/** What the cache says about a request: its answer, or how to keep the upstream's. */
export interface CacheDecision {
  status: CacheStatus;
  /** The cached answer (the upstream is not called); null on a miss. */
  hit: Replayed | null;
  /**
   * The upstream's answer, wrapped so that a 2xx one is stored once it is complete (a stream
   * when its last event passed); other answers pass untouched. Adds nothing to the response's way.
   */
  keep(response: ProxyResponse, served: ServedBy): ProxyResponse;
}

const PASS: CacheDecision["keep"] = (response) => response;
const DISABLED: CacheDecision = { status: "DISABLED", hit: null, keep: PASS };

/**
 * Looks the request up (unless it forces a refresh) and says its cache status. Not cached
 * (`DISABLED`): a config without `cache`, an operation without a cache rule or a body its rule refuses,
 * a request that runs guardrails. Never throws: a store that fails is a miss.
 */
export async function consultCache(request: CacheRequest, cache: AnswerCache): Promise<CacheDecision> {
  const maxAge = cacheMaxAgeSeconds(request.settings);
  if (maxAge === null || request.guarded || !isCacheable(request.operation, request.body)) return DISABLED;
  const key = cacheKey({
    workspaceId: request.workspaceId,
    namespace: request.namespace ?? "",
    operationId: request.operation.id,
    upstreamPath: request.upstreamPath,
    forwardedHeaders: answerShapingHeaders(request.forwardedHeaders ?? {}),
    targets: request.candidates.map((candidate) => candidate.target),
    targetOverrides: request.candidates.map((candidate) => candidate.settings.overrideParams),
    body: request.body ?? {},
  });
  if (!request.forceRefresh) {
    const found = await cache.store.get(key);
    if (found) return { status: "HIT", hit: replayAnswer(found, request.maxLoggedBytes), keep: PASS };
  }
  return { status: request.forceRefresh ? "REFRESH" : "MISS", hit: null, keep: (response, served) => storeOnCompletion(response, served, key, maxAge, request, cache) };
}

function storeOnCompletion(response: ProxyResponse, served: ServedBy, key: string, maxAge: number, request: CacheRequest, cache: AnswerCache): ProxyResponse {
  const { status, headers, body } = response;
  if (status < 200 || status >= 300) return response;
  const save = (answer: (provider: string, model: string | null) => CachedAnswer | null): void => {
    const built = answer(served.provider, served.model);
    if (built) void cache.store.set(key, built, maxAge);
    else dropped();
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
