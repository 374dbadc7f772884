import { ok, type GatewayError, type Result } from "../errors.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import type { Candidate } from "../core/routing-loop.ts";
import type { ProxyResponse } from "../core/upstream-answer.ts";
import type { RequestLog } from "../logging/request-log.ts";
import type { JsonObject } from "../providers/provider.ts";
import type { AnswerStore } from "./answer-store.ts";
import { captureBody, cacheableEvents } from "./answer-capture.ts";
import { answerShapingHeaders } from "../core/header-rules.ts";
import { cacheKey } from "./cache-key.ts";
import { replayAnswer } from "./cache-replay.ts";
import { cacheMaxAgeSeconds, type ConfigCacheSettings } from "./cache-settings.ts";
import type { CachedAnswer } from "./cached-answer.ts";
import { isCacheable } from "./cacheable.ts";

/** `x-gateway-cache-status` on every proxied answer. */
export const CACHE_STATUS_HEADER = "x-gateway-cache-status";
export const CACHE_STATUSES = ["HIT", "MISS", "REFRESH", "DISABLED"] as const;
export type CacheStatus = (typeof CACHE_STATUSES)[number];

/** The gateway's answer cache: where answers live, and the largest one kept. */
export interface AnswerCache {
  store: AnswerStore;
  /** `GATEWAY_CACHE_MAX_ENTRY_BYTES`. */
  maxEntryBytes: number;
}

export interface CacheRequest {
  operation: OperationDescriptor;
  /** The config's `cache`, if it has one. */
  settings: ConfigCacheSettings | undefined;
  candidates: readonly Candidate[];
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
  log: RequestLog;
  maxLoggedBytes: number;
}

/** What the cache says about a request: its answer, or how to keep the upstream's. */
export interface CacheDecision {
  /** The cached answer (the upstream is not called); null on a miss. */
  hit: ProxyResponse | null;
  /**
   * The upstream's answer, wrapped so that a 2xx one is stored once it is complete (a stream
   * when its last event passed); other answers pass untouched. Adds nothing to the response's way.
   */
  keep(result: Result<ProxyResponse, GatewayError>): Result<ProxyResponse, GatewayError>;
}

const PASS: CacheDecision["keep"] = (result) => result;

/**
 * Looks the request up (unless it forces a refresh) and sets `log.cacheStatus`. Not cached
 * (`DISABLED`): a config without `cache`, an operation or body `cacheable.ts` does not list,
 * a request that runs guardrails. Never throws: a store that fails is a miss.
 */
export async function consultCache(request: CacheRequest, cache: AnswerCache): Promise<CacheDecision> {
  const { log } = request;
  const maxAge = cacheMaxAgeSeconds(request.settings);
  if (maxAge === null || request.guarded || !isCacheable(request.operation.id, request.body)) {
    log.cacheStatus = "DISABLED";
    return { hit: null, keep: PASS };
  }
  const key = cacheKey({
    workspaceId: request.workspaceId,
    namespace: request.namespace ?? "",
    operationId: request.operation.id,
    upstreamPath: request.operation.upstreamPath,
    forwardedHeaders: answerShapingHeaders(request.forwardedHeaders ?? {}),
    targets: request.candidates.map((candidate) => candidate.target),
    targetOverrides: request.candidates.map((candidate) => candidate.settings.overrideParams),
    body: request.body ?? {},
  });
  if (!request.forceRefresh) {
    const found = await cache.store.get(key);
    if (found) {
      log.cacheStatus = "HIT";
      return { hit: replayAnswer(found, log, request.maxLoggedBytes), keep: PASS };
    }
  }
  log.cacheStatus = request.forceRefresh ? "REFRESH" : "MISS";
  return { hit: null, keep: (result) => (result.ok ? storeOnCompletion(result.value, key, maxAge, request, cache) : result) };
}

function storeOnCompletion(response: ProxyResponse, key: string, maxAge: number, request: CacheRequest, cache: AnswerCache): Result<ProxyResponse, GatewayError> {
  const { log } = request;
  const { status, headers, body } = response;
  if (status < 200 || status >= 300) return ok(response);
  // Read when the answer is complete: the served target's provider and model are in the log by then.
  const save = (answer: (provider: string, model: string | null) => CachedAnswer | null): void => {
    const built = log.provider ? answer(log.provider, log.model) : null;
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
    return ok(response);
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
  return ok({ ...response, body: captured });
}
