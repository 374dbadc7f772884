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
  /** Null when no price is known for the model. */
  costUsd: number | null;
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
  /** Guardrail results (verdict, check, latency) as JSON text; null when none ran. */
  guardrailResults: string | null;
  /** Every upstream try, in order; empty when none was made (e.g. the gateway answered itself). */
  attempts: AttemptRecord[];
}

/** One try of an upstream target, in the order tried. */
export interface AttemptRecord {
  /** Index of the target in the request's list of candidate targets. */
  target: number;
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
}

/** Filters of `GET /v1/logs`; every field narrows the result. */
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
  /** Inclusive lower bound, ISO 8601. */
  from?: string;
  /** Exclusive upper bound, ISO 8601. */
  to?: string;
  metadata?: Record<string, string>;
  /** Return records older than this log id (cursor). */
  before?: string;
  limit: number;
}
