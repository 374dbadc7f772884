import { computeCostUsd } from "../core/cost.ts";
import { createChatStreamAssembler, normaliseUsage, type Usage } from "../core/chat-stream-assembler.ts";
import { isoNow, uuidv7 } from "../core/ids.ts";
import type { LogRecord } from "./log-record.ts";
import type { PendingLog } from "./log-writer.ts";

/** What the response was, kept raw until the record is built at flush time. */
export type LoggedResponse =
  | { kind: "json-text"; text: string }
  | { kind: "stream"; chunks: string[] }
  | { kind: "error"; body: unknown };

export interface RequestLogIdentity {
  organisationId: string;
  workspaceId: string;
  apiKeyId: string | null;
  route: string;
  method: string;
  path: string;
  traceId: string;
  spanId: string | null;
  parentSpanId: string | null;
  spanName: string | null;
}

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 };

/**
 * The log record of one request while it is being served. The proxy fills it in; `finish`
 * hands a builder to the batch writer, which parses, assembles and prices at flush time.
 */
export class RequestLog {
  readonly id = uuidv7();
  readonly createdAt = isoNow();
  private readonly startedAt = performance.now();
  private firstTokenAt: number | null = null;
  private finished = false;

  provider: string | null = null;
  model: string | null = null;
  virtualKeyId: string | null = null;
  user: string | null = null;
  stream = false;
  metadata: Record<string, string> = {};
  requestBody: unknown = null;
  response: LoggedResponse | null = null;
  promptId: string | null = null;
  promptVersion: number | null = null;
  /** Every guardrail check that ran (input and output), serialised at flush time. */
  guardrailResults: unknown[] | null = null;
  /** A stream finishes its own log when it ends; the middleware leaves it alone. */
  deferred = false;

  constructor(
    readonly identity: RequestLogIdentity,
    private readonly enqueue: (build: PendingLog) => void,
    private readonly onFinished: () => void,
  ) {}

  markFirstToken(): void {
    if (this.firstTokenAt === null) this.firstTokenAt = performance.now();
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Completes the record once; later calls are ignored. Never throws. */
  finish(status: number, error: { code: string | null; message: string } | null = null): void {
    if (this.finished) return;
    this.finished = true;
    const latencyMs = round(performance.now() - this.startedAt);
    const ttftMs = this.firstTokenAt === null ? null : round(this.firstTokenAt - this.startedAt);
    const snapshot = { ...this, status, error, latencyMs, ttftMs };
    this.enqueue(() => buildRecord(snapshot));
    this.onFinished();
  }
}

type Snapshot = Pick<
  RequestLog,
  | "id"
  | "createdAt"
  | "identity"
  | "provider"
  | "model"
  | "virtualKeyId"
  | "user"
  | "stream"
  | "metadata"
  | "requestBody"
  | "response"
  | "promptId"
  | "promptVersion"
  | "guardrailResults"
> & { status: number; error: { code: string | null; message: string } | null; latencyMs: number; ttftMs: number | null };

function buildRecord(log: Snapshot): LogRecord {
  const { body, usage, servedModel } = describeResponse(log.response);
  const model = log.model;
  const costModel = servedModel ?? model;
  const costUsd = log.provider && costModel && usage ? computeCostUsd(log.provider, costModel, usage) : null;
  const counted = usage ?? ZERO_USAGE;
  return {
    id: log.id,
    createdAt: log.createdAt,
    organisationId: log.identity.organisationId,
    workspaceId: log.identity.workspaceId,
    apiKeyId: log.identity.apiKeyId,
    virtualKeyId: log.virtualKeyId,
    provider: log.provider,
    model,
    route: log.identity.route,
    method: log.identity.method,
    path: log.identity.path,
    status: log.status,
    success: log.error === null && log.status < 400,
    stream: log.stream,
    latencyMs: log.latencyMs,
    timeToFirstTokenMs: log.ttftMs,
    promptTokens: counted.promptTokens,
    completionTokens: counted.completionTokens,
    totalTokens: counted.totalTokens,
    cachedTokens: counted.cachedTokens,
    reasoningTokens: counted.reasoningTokens,
    costUsd,
    user: log.user,
    metadata: log.metadata,
    traceId: log.identity.traceId,
    spanId: log.identity.spanId,
    parentSpanId: log.identity.parentSpanId,
    spanName: log.identity.spanName,
    requestBody: log.requestBody === null ? null : JSON.stringify(log.requestBody),
    responseBody: body,
    errorCode: log.error?.code ?? null,
    errorMessage: log.error?.message ?? null,
    promptId: log.promptId,
    promptVersion: log.promptVersion,
    guardrailResults: log.guardrailResults ? JSON.stringify(log.guardrailResults) : null,
  };
}

function describeResponse(response: LoggedResponse | null): { body: string | null; usage: Usage | null; servedModel: string | null } {
  if (!response) return { body: null, usage: null, servedModel: null };
  if (response.kind === "error") return { body: JSON.stringify(response.body), usage: null, servedModel: null };
  if (response.kind === "json-text") {
    const parsed = safeParse(response.text);
    return { body: response.text, usage: normaliseUsage(field(parsed, "usage")), servedModel: stringField(parsed, "model") };
  }
  const assembler = createChatStreamAssembler();
  for (const chunk of response.chunks) assembler.add(safeParse(chunk));
  const { completion, usage } = assembler.result();
  return { body: JSON.stringify(completion), usage, servedModel: stringField(completion, "model") };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function stringField(value: unknown, key: string): string | null {
  const found = field(value, key);
  return typeof found === "string" && found.length > 0 ? found : null;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
