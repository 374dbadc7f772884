/**
 * What serving one request produced, as values: the pipeline's stages each return their part,
 * and the log entry is built once from them at the end (`logEntryOf`, below). Declared here, below
 * the stages that produce the parts (the cache replays an ending too). Nothing here is written
 * after it is returned, and nothing reads a log back.
 */
import { capText } from "../lib/body-capture.ts";
import type { AttemptRecord, CacheStatus, ToolStepRecord } from "../records/log-record.ts";
import type { GuardrailTiming, LogEntry, LoggedResponse, RequestParams } from "./log-entry.ts";

/** Who called, and how the request arrived: fixed once its headers are read. */
export interface RequestFacts {
  readonly organisationId: string;
  readonly workspaceId: string;
  readonly apiKeyId: string | null;
  /** The operationId that served it. */
  readonly route: string;
  readonly method: string;
  readonly path: string;
  /** The caller's trace id; a request without one starts its own trace, named by its log id. */
  readonly traceId: string | null;
  readonly spanId: string | null;
  readonly parentSpanId: string | null;
  readonly spanName: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

/** The request as the client sent it, for the log: its body text and who it names. */
export interface RequestDescription {
  /** The body as JSON text (an upload's metadata); null when there was none. */
  body: string | null;
  /** The body's size when `body` describes it rather than being it (an upload); undefined when `body` is the body. */
  bodyBytes?: number | null;
  model: string | null;
  user: string | null;
  params: RequestParams | null;
}

/** Every guardrail check that ran, and when each stage ran. */
export interface GuardrailRuns {
  results: unknown[];
  timings: GuardrailTiming[];
}

/** What the pipeline learned before the answer: fixed once returned. */
export interface Outcome {
  /** The name of the reader of its answer (`OperationDescriptor.answers`). */
  format: string;
  /** The operation's `gen_ai.operation.name`; null for one that is no GenAI call. */
  genAiOperation: string | null;
  stream: boolean;
  request: RequestDescription | null;
  promptId: string | null;
  promptVersion: number | null;
  configId: string | null;
  configVersion: number | null;
  /** The experiment that assigned the request a variant, and the variant; null outside a running experiment. */
  experimentId: string | null;
  experimentVariant: string | null;
  /** The target that served the request (or the first one planned, when none answered). */
  provider: string | null;
  model: string | null;
  virtualKeyId: string | null;
  attempts: readonly AttemptRecord[];
  /** Null while the cache has not looked (the request failed before it). */
  cacheStatus: CacheStatus | null;
  /** What the cache adds about a hit or a skipped semantic lookup (`CacheDecision`). */
  cacheSimilarity: number | null;
  cacheSourceLogId: string | null;
  cacheNote: string | null;
  guardrails: GuardrailRuns | null;
  /** A refused request's tool-run steps (a served one's are in its ending). */
  toolRun?: readonly ToolStepRecord[];
}

/** How the answer ended: known as a JSON answer is returned, when the last event passes for a stream. */
export interface AnswerEnding {
  status: number;
  error: { code: string | null; message: string } | null;
  response: LoggedResponse | null;
  /** `performance.now()` when the first byte or token was ready; null when none was. */
  firstTokenAt: number | null;
  /** Output guardrails that judged a stream at its end. */
  outputGuardrails?: GuardrailRuns | null;
  /** The upload's description, final once its body was sent (`upstream-request.ts`). */
  request?: RequestDescription | null;
  /** The steps of a tool run the gateway drove (`families/responses/tool-run/`), known once it ended. */
  toolRun?: readonly ToolStepRecord[];
}

/**
 * What the log keeps of an upstream answer the gateway refused to pass on (not JSON, too large
 * to judge, an error): when it arrived and its bytes, as far as they were read.
 */
export interface RefusedAnswer {
  answeredAt: number | null;
  response: LoggedResponse | null;
}

/** An ending now, or one still on its way (a relayed stream). */
export type PendingEnding = AnswerEnding | Promise<AnswerEnding>;

/** What a request that has not reached the proxy stages (refused by its own route) produced. */
export function emptyOutcome(format = "chat", genAiOperation: string | null = null): Outcome {
  return {
    format,
    genAiOperation,
    stream: false,
    request: null,
    promptId: null,
    promptVersion: null,
    configId: null,
    configVersion: null,
    experimentId: null,
    experimentVariant: null,
    provider: null,
    model: null,
    virtualKeyId: null,
    attempts: [],
    cacheStatus: null,
    cacheSimilarity: null,
    cacheSourceLogId: null,
    cacheNote: null,
    guardrails: null,
  };
}

/** The request's identity in its log: its ids, clock and facts. */
export interface LoggedRequest {
  id: string;
  createdAt: string;
  /** `performance.now()` at arrival. */
  startedAt: number;
  traceId: string;
  facts: RequestFacts;
}

/**
 * The one place a log entry is built: from who called (`facts`), what the pipeline did
 * (`outcome`) and how the answer ended. Pure; the writer parses, assembles and prices it later,
 * off the request path.
 */
export function logEntryOf(request: LoggedRequest, outcome: Outcome, ending: AnswerEnding, maxBodyBytes: number): LogEntry {
  const { facts } = request;
  const described = ending.request ?? outcome.request;
  const body = described?.body ?? null;
  const captured = body === null ? null : capText(body, maxBodyBytes);
  const guardrails = mergedGuardrails(outcome, ending);
  return {
    id: request.id,
    createdAt: request.createdAt,
    organisationId: facts.organisationId,
    workspaceId: facts.workspaceId,
    apiKeyId: facts.apiKeyId,
    virtualKeyId: outcome.virtualKeyId,
    provider: outcome.provider,
    model: outcome.model ?? described?.model ?? null,
    route: facts.route,
    method: facts.method,
    path: facts.path,
    status: ending.status,
    stream: outcome.stream,
    cacheStatus: outcome.cacheStatus,
    cacheSimilarity: outcome.cacheSimilarity,
    cacheSourceLogId: outcome.cacheSourceLogId,
    cacheNote: outcome.cacheNote,
    latencyMs: elapsed(request.startedAt, performance.now()),
    timeToFirstTokenMs: ending.firstTokenAt === null ? null : elapsed(request.startedAt, ending.firstTokenAt),
    user: described?.user ?? null,
    metadata: facts.metadata as Record<string, string>,
    traceId: request.traceId,
    spanId: facts.spanId,
    parentSpanId: facts.parentSpanId,
    spanName: facts.spanName,
    requestBody: captured?.text ?? null,
    requestBodyTruncated: captured?.truncated ?? false,
    requestBodyBytes: described?.bodyBytes === undefined ? (captured?.totalBytes ?? null) : described.bodyBytes,
    response: ending.response,
    errorCode: ending.error?.code ?? null,
    errorMessage: ending.error?.message ?? null,
    promptId: outcome.promptId,
    promptVersion: outcome.promptVersion,
    configId: outcome.configId,
    configVersion: outcome.configVersion,
    experimentId: outcome.experimentId,
    experimentVariant: outcome.experimentVariant,
    guardrailResults: guardrails?.results ?? null,
    attempts: outcome.attempts as LogEntry["attempts"],
    toolRun: [...(ending.toolRun ?? outcome.toolRun ?? [])],
    format: outcome.format,
    genAiOperation: outcome.genAiOperation,
    requestParams: described?.params ?? null,
    guardrailTimings: guardrails?.timings ?? null,
  };
}

/** Input guardrails from the outcome, and a stream's output guardrails from its ending. */
function mergedGuardrails(outcome: Outcome, ending: AnswerEnding): Outcome["guardrails"] {
  const late = ending.outputGuardrails;
  if (!late) return outcome.guardrails;
  if (!outcome.guardrails) return late;
  return { results: [...outcome.guardrails.results, ...late.results], timings: [...outcome.guardrails.timings, ...late.timings] };
}

function elapsed(from: number, to: number): number {
  return Math.round((to - from) * 1000) / 1000;
}
