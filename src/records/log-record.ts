/** What the answer cache did for a request: logged, and sent as `x-gateway-cache-status`. */
export const CACHE_STATUSES = ["HIT", "SEMANTIC_HIT", "MISS", "REFRESH", "DISABLED"] as const;
export type CacheStatus = (typeof CACHE_STATUSES)[number];

/**
 * One logged request, as the proxy core hands it to the batch writer and as the
 * store keeps it. Secrets (Authorization, gateway keys, upstream keys) never appear here.
 */
export interface LogRecord {
  /** UUIDv7: time-ordered, so the id doubles as the pagination cursor. */
  id: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  organisationId: string;
  workspaceId: string;
  apiKeyId: string | null;
  /** Set when a stored virtual key served the request. */
  virtualKeyId: string | null;
  provider: string | null;
  model: string | null;
  /** Operation id of the route, e.g. `createChatCompletion`. */
  route: string;
  method: string;
  path: string;
  /** HTTP status the client received. */
  status: number;
  success: boolean;
  stream: boolean;
  latencyMs: number;
  timeToFirstTokenMs: number | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  /** Web searches the provider ran and bills apart from tokens (counted from the answer); priced in `costUsd`. */
  webSearches: number;
  /** Null when no price is known for the model; 0 for an answer served from the cache. */
  costUsd: number | null;
  /** What a cache hit would have cost upstream (its answer's usage, priced); null otherwise. */
  costSavedUsd: number | null;
  /** Why `costUsd` is null (no price for the model, no usage reported); null when it is not. */
  costNote: string | null;
  /** `x-gateway-cache-status` of the answer; null when the request never reached the cache. */
  cacheStatus: CacheStatus | null;
  /** A semantic hit's cosine similarity to the cached request; null otherwise. */
  cacheSimilarity: number | null;
  /** A hit's source: the log id of the request whose answer was served. */
  cacheSourceLogId: string | null;
  /** Why the semantic lookup did not run (the embedding call failed or timed out); null otherwise. */
  cacheNote: string | null;
  /** The request's `user` field. */
  user: string | null;
  metadata: Record<string, string>;
  traceId: string;
  spanId: string | null;
  parentSpanId: string | null;
  spanName: string | null;
  /** Exact request body as JSON text (after secrets are removed), cut to the log's body limit. */
  requestBody: string | null;
  /** True when `requestBody` holds only the first bytes of the body. */
  requestBodyTruncated: boolean;
  /** The request body's full size in bytes; null when there was none. */
  requestBodyBytes: number | null;
  /** Response body as JSON text, cut to the log's body limit; a stream's is assembled from its chunks. */
  responseBody: string | null;
  /** True when `responseBody` holds only part of the answer. */
  responseBodyTruncated: boolean;
  /** The upstream answer's full size in bytes as received (a stream's event-stream bytes); null when unknown. */
  responseBodyBytes: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** Set when the request ran a stored prompt. */
  promptId: string | null;
  promptVersion: number | null;
  /** Set when a stored config (named, or the workspace's default) served the request: its id, stable across versions. */
  configId: string | null;
  /** The version of that config that served the request. */
  configVersion: number | null;
  /** Set when a running experiment assigned the request a variant: the experiment's id. */
  experimentId: string | null;
  /** The variant's name. */
  experimentVariant: string | null;
  /** Guardrail results (verdict, check, latency) as JSON text; null when none ran. */
  guardrailResults: string | null;
  /** Every upstream try, in order; empty when none was made (e.g. the gateway answered itself). */
  attempts: AttemptRecord[];
  /** The steps of a tool run the gateway drove (model rounds, MCP listings and calls), in order; empty otherwise. */
  toolRun: ToolStepRecord[];
}

/**
 * One step of a tool run the gateway drove for a Responses request: a model round, a server's
 * tool listing or a tool call. Kept in the API's own shape (snake case), as the log shows it.
 */
export interface ToolStepRecord {
  type: "model" | "mcp_list_tools" | "mcp_call";
  /** The model round it belongs to, from 0. */
  round: number;
  /** Epoch milliseconds. */
  started_at: number;
  duration_ms: number;
  server_label: string | null;
  tool: string | null;
  error: string | null;
  /** `model`: the upstream's status and the round's tokens. */
  status?: number | null;
  input_tokens?: number;
  output_tokens?: number;
  /** `mcp_call`: arguments and result as text, cut to the log's body limit. */
  arguments?: string | null;
  output?: string | null;
}

/** One try of an upstream target, in the order tried. */
export interface AttemptRecord {
  /** Index of the target in the request's list of candidate targets. */
  target: number;
  /** The target's place in the config (`"1"`, `"1.0"`); `""` for the config's root or no config. */
  path: string;
  /** 0 for a target's first try, then 1, 2… for its retries. */
  retry: number;
  provider: string;
  /** The model as sent upstream; null when the operation names none. */
  model: string | null;
  /** The upstream's HTTP status; null when none came (timeout, connection error, client gone). */
  status: number | null;
  /** When the try began, in epoch milliseconds (the clock of `createdAt`); absent in records stored before it was kept. */
  startedAt?: number;
  /** From the try's start to the upstream's status and headers (or its failure). */
  latencyMs: number;
  errorCode: string | null;
  errorMessage: string | null;
  /** What the gateway dropped of the try's answer and why (headers too large to pass on); absent when nothing was. */
  note?: string;
}

/** The status classes a listing can keep. */
export const STATUS_CLASSES = ["2xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/**
 * Filters of `GET /v1/logs` and its export; every field narrows the result. `matchesLogFilters`
 * (`store/log-filters.ts`) is the one place they become SQL. Ranges are inclusive on both ends.
 */
export interface LogFilters {
  workspaceId: string;
  user?: string;
  model?: string;
  provider?: string;
  status?: number;
  success?: boolean;
  traceId?: string;
  /** Records of requests that ran this stored prompt. */
  promptId?: string;
  /** Records of requests a virtual key served. */
  virtualKeyId?: string;
  /** Records of requests an experiment assigned a variant, and of one variant. */
  experimentId?: string;
  experimentVariant?: string;
  /** Inclusive lower bound, ISO 8601. */
  from?: string;
  /** Exclusive upper bound, ISO 8601. */
  to?: string;
  metadata?: Record<string, string>;
  /** `2xx`: 200–299, `4xx`: 400–499 (499 is a client that left), `5xx`: 500–599. */
  statusClass?: StatusClass;
  /** Records the answer cache served (or not) this way. */
  cacheStatus?: CacheStatus;
  /** Records a stored config served, named by its id or its slug. */
  config?: string;
  minTotalTokens?: number;
  maxTotalTokens?: number;
  /** Records without a known cost never match a cost bound. */
  minCostUsd?: number;
  maxCostUsd?: number;
  minLatencyMs?: number;
  maxLatencyMs?: number;
  /** Records without a first token (not streamed, or failed) never match a bound. */
  minTimeToFirstTokenMs?: number;
  maxTimeToFirstTokenMs?: number;
  /** Return records older than this log id (cursor). */
  before?: string;
  limit: number;
}
