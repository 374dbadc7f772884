import { isoNow, uuidv7 } from "../core/ids.ts";
import { capText } from "../core/body-capture.ts";
import type { AnswerFormat } from "./answer-formats.ts";
import type { GuardrailTiming, LogEntry, LoggedResponse, RequestParams } from "./log-entry.ts";
import type { AttemptRecord } from "./log-record.ts";
import type { CacheStatus } from "../cache/response-cache.ts";

export interface RequestLogIdentity {
  organisationId: string;
  workspaceId: string;
  apiKeyId: string | null;
  route: string;
  method: string;
  path: string;
  /** The caller's trace id; a request without one starts its own trace, named by its log id. */
  traceId: string | null;
  spanId: string | null;
  parentSpanId: string | null;
  spanName: string | null;
}

/**
 * The log of one request while it is being served. The proxy fills it in; `finish` hands a
 * plain entry to the batch writer, which parses, assembles and prices it off the request path.
 */
export class RequestLog {
  readonly id = uuidv7();
  readonly createdAt = isoNow();
  private readonly startedAt = performance.now();
  private firstTokenAt: number | null = null;
  private finished = false;
  private finishListeners: ((entry: LogEntry) => void)[] | null = null;

  provider: string | null = null;
  model: string | null = null;
  virtualKeyId: string | null = null;
  user: string | null = null;
  stream = false;
  /** Set by the cache (`cache/response-cache.ts`); null while it has not looked. */
  cacheStatus: CacheStatus | null = null;
  metadata: Record<string, string> = {};
  /** The request body as JSON text (an upload's metadata, `core/upload-meter.ts`). */
  requestBody: string | null = null;
  /**
   * The body's size when `requestBody` is not the body itself but its description (an upload,
   * null while unknown); `undefined` when `requestBody` is the body, whose size is its text's.
   */
  requestBodyBytes: number | null | undefined = undefined;
  response: LoggedResponse | null = null;
  promptId: string | null = null;
  promptVersion: number | null = null;
  /** The stored config that served the request (`core/request-config.ts`), if one did. */
  configId: string | null = null;
  configVersion: number | null = null;
  /** Every guardrail check that ran (input and output). */
  guardrailResults: unknown[] | null = null;
  /** Every upstream try, in order; the core appends one per try. */
  attempts: AttemptRecord[] = [];
  /** The body's generation parameters, for telemetry (not stored). */
  requestParams: RequestParams | null = null;
  /** When each guardrail stage ran, for telemetry (not stored); null until one runs. */
  guardrailTimings: GuardrailTiming[] | null = null;
  /** How the record builder reads the answer. */
  format: AnswerFormat = "chat";
  /** The operation's `gen_ai.operation.name`; null for one that is no GenAI call. */
  genAiOperation: string | null = null;
  /** A stream finishes its own log when it ends; the middleware leaves it alone. */
  deferred = false;

  constructor(
    readonly identity: RequestLogIdentity,
    private readonly enqueue: (entry: LogEntry) => void,
    private readonly onFinished: () => void,
    /** The log keeps at most this many bytes of each body (`GATEWAY_MAX_LOGGED_BODY_BYTES`). */
    readonly maxBodyBytes = Number.POSITIVE_INFINITY,
  ) {
  }

  /** The caller's trace id, or this request's log id when it sent none. */
  get traceId(): string {
    return this.identity.traceId ?? this.id;
  }

  /** Runs one guardrail stage, noting when it ran and for how long. */
  async timeGuardrails<T>(stage: GuardrailTiming["stage"], run: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    const started = performance.now();
    try {
      return await run();
    } finally {
      (this.guardrailTimings ??= []).push({ stage, startedAt, durationMs: round(performance.now() - started) });
    }
  }

  markFirstToken(): void {
    if (this.firstTokenAt === null) this.firstTokenAt = performance.now();
  }

  /** Calls `listener` with the entry when the log finishes (the spend meter settles there). */
  onFinish(listener: (entry: LogEntry) => void): void {
    (this.finishListeners ??= []).push(listener);
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Completes the log once; later calls are ignored. Never throws. */
  finish(status: number, error: { code: string | null; message: string } | null = null): void {
    if (this.finished) return;
    this.finished = true;
    const { identity } = this;
    const request = this.requestBody === null ? null : capText(this.requestBody, this.maxBodyBytes);
    const entry: LogEntry = {
      id: this.id,
      createdAt: this.createdAt,
      organisationId: identity.organisationId,
      workspaceId: identity.workspaceId,
      apiKeyId: identity.apiKeyId,
      virtualKeyId: this.virtualKeyId,
      provider: this.provider,
      model: this.model,
      route: identity.route,
      method: identity.method,
      path: identity.path,
      status,
      stream: this.stream,
      cacheStatus: this.cacheStatus,
      latencyMs: round(performance.now() - this.startedAt),
      timeToFirstTokenMs: this.firstTokenAt === null ? null : round(this.firstTokenAt - this.startedAt),
      user: this.user,
      metadata: this.metadata,
      traceId: this.traceId,
      spanId: identity.spanId,
      parentSpanId: identity.parentSpanId,
      spanName: identity.spanName,
      requestBody: request?.text ?? null,
      requestBodyTruncated: request?.truncated ?? false,
      requestBodyBytes: this.requestBodyBytes === undefined ? (request?.totalBytes ?? null) : this.requestBodyBytes,
      response: this.response,
      errorCode: error?.code ?? null,
      errorMessage: error?.message ?? null,
      promptId: this.promptId,
      promptVersion: this.promptVersion,
      configId: this.configId,
      configVersion: this.configVersion,
      guardrailResults: this.guardrailResults,
      attempts: this.attempts,
      format: this.format,
      genAiOperation: this.genAiOperation,
      requestParams: this.requestParams,
      guardrailTimings: this.guardrailTimings,
    };
    this.enqueue(entry);
    for (const listener of this.finishListeners ?? []) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own; the log and the request go on.
      }
    }
    this.onFinished();
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
