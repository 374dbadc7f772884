import { GatewayError } from "../errors.ts";
import type { LogFilterSet } from "../store/log-filters.ts";
import type { CacheStatus, StatusClass } from "../records/log-record.ts";

/**
 * The filter parameters of `GET /v1/logs` and `GET /v1/logs/export` as their generated
 * validators parse them: both routes accept exactly these (the export test checks the document).
 */
export interface LogFilterQuery {
  user?: string;
  model?: string;
  provider?: string;
  status?: number;
  success?: boolean;
  trace_id?: string;
  virtual_key_id?: string;
  prompt_id?: string;
  experiment_id?: string;
  experiment_variant?: string;
  from?: string;
  to?: string;
  status_class?: StatusClass;
  cache_status?: CacheStatus;
  config?: string;
  min_total_tokens?: number;
  max_total_tokens?: number;
  min_cost_usd?: number;
  max_cost_usd?: number;
  min_latency_ms?: number;
  max_latency_ms?: number;
  min_time_to_first_token_ms?: number;
  max_time_to_first_token_ms?: number;
}

/** `s`: a key may hold a line break (the metadata header accepts one). */
const METADATA_PARAM = /^metadata\[(.+)\]$/s;
/**
 * Metadata filters a request may hold: each one is a condition (on PostgreSQL, for logs stored
 * before migration 0029, a join) the store plans, and a thousand of them took a PostgreSQL
 * backend past 20 GB of memory planning one query.
 */
const MAX_METADATA_FILTERS = 16;

/** `metadata[key]=value` pairs (OpenAPI deepObject style), read from the raw query. */
function metadataFilter(url: string): Record<string, string> | undefined {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of new URL(url).searchParams) {
    const key = METADATA_PARAM.exec(name)?.[1];
    if (key === undefined) continue;
    if (pairs.length === MAX_METADATA_FILTERS) {
      throw new GatewayError("invalid_request", `At most ${MAX_METADATA_FILTERS} metadata[<key>] filters may be given at once.`, { param: "metadata" });
    }
    // A log holds one value a key: a key filtered twice would match nothing, or silently only the last value.
    if (pairs.some(([seen]) => seen === key)) throw new GatewayError("invalid_request", "Each metadata[<key>] filter may be given once.", { param: "metadata" });
    pairs.push([key, value]);
  }
  // Own properties whatever the key: assigning `__proto__` would drop the filter silently.
  return pairs.length > 0 ? Object.fromEntries(pairs) : undefined;
}

/** The store's filters for a request's query (`url` carries the metadata pairs), in one workspace. */
export function logFiltersOf(query: LogFilterQuery, url: string, workspaceId: string): LogFilterSet {
  if (query.from !== undefined && query.to !== undefined && Date.parse(query.from) >= Date.parse(query.to)) {
    throw new GatewayError("invalid_request", "from must be before to.", { param: "from" });
  }
  return {
    workspaceId,
    user: query.user,
    model: query.model,
    provider: query.provider,
    status: query.status,
    success: query.success,
    traceId: query.trace_id,
    cacheStatus: query.cache_status,
    promptId: query.prompt_id,
    virtualKeyId: query.virtual_key_id,
    experimentId: query.experiment_id,
    experimentVariant: query.experiment_variant,
    from: query.from,
    to: query.to,
    metadata: metadataFilter(url),
    statusClass: query.status_class,
    config: query.config,
    minTotalTokens: query.min_total_tokens,
    maxTotalTokens: query.max_total_tokens,
    minCostUsd: query.min_cost_usd,
    maxCostUsd: query.max_cost_usd,
    minLatencyMs: query.min_latency_ms,
    maxLatencyMs: query.max_latency_ms,
    minTimeToFirstTokenMs: query.min_time_to_first_token_ms,
    maxTimeToFirstTokenMs: query.max_time_to_first_token_ms,
  };
}
