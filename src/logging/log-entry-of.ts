import { capText } from "../lib/body-capture.ts";
import type { LogEntry } from "./log-entry.ts";
import type { AnswerEnding, Outcome, RequestFacts } from "./outcome.ts";

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
