import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_URL_PATH } from "@opentelemetry/semantic-conventions";
import type { GuardrailResult } from "../guardrails/types.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import type { AttemptRecord } from "../records/log-record.ts";
import type { RecordFigures } from "../logging/record-figures.ts";
import { GEN_AI, genAiProvider } from "./genai-attributes.ts";
import { otelSpanId, otelTraceId } from "./trace-ids.ts";

/** Lets the next root span take a trace id chosen here (the log's) instead of a random one. */
export interface TraceIdChooser {
  withTraceId<T>(traceId: string, start: () => T): T;
}

/**
 * The spans of one finished request, from its log entry, with the times it recorded: the
 * gateway's SERVER span; under it one INTERNAL span per guardrail that ran, one CLIENT span
 * per upstream try, and one INTERNAL span per MCP listing and tool call of a tool run. A request carrying a parent span (a `traceparent`, or a hex
 * `x-gateway-parent-span-id`) joins that trace under it; otherwise its trace id is the log's.
 * Never throws for well-formed entries.
 */
export function emitRequestSpans(tracer: Tracer, ids: TraceIdChooser, entry: LogEntry, figures: RecordFigures | null): void {
  const start = Date.parse(entry.createdAt);
  const end = start + entry.latencyMs;
  const traceId = otelTraceId(entry.traceId);
  const parentSpanId = otelSpanId(entry.parentSpanId);
  // Set from the operation's descriptor; an entry without it (no GenAI call) gets no `gen_ai.*`.
  const operation = entry.genAiOperation ?? null;
  const options = { kind: SpanKind.SERVER, startTime: start, attributes: serverAttributes(entry, figures, operation, traceId) };
  const name = entry.spanName ?? `${entry.method} ${entry.route}`;
  const server = parentSpanId
    ? tracer.startSpan(name, options, trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }))
    : ids.withTraceId(traceId, () => tracer.startSpan(name, options, ROOT_CONTEXT));
  const inServer = trace.setSpan(ROOT_CONTEXT, server);
  emitGuardrailSpans(tracer, inServer, entry);
  entry.attempts.forEach((attempt, index) => {
    const answered = index === entry.attempts.length - 1 && attempt.status !== null;
    emitAttemptSpan(tracer, inServer, { attempt, index, answered, operation, requestStart: start, requestEnd: end, figures });
  });
  emitToolSpans(tracer, inServer, entry);
  if (entry.status >= 500) server.setStatus({ code: SpanStatusCode.ERROR, message: entry.errorMessage ?? undefined });
  server.end(end);
}

function serverAttributes(entry: LogEntry, figures: RecordFigures | null, operation: string | null, traceId: string): Attributes {
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: entry.method,
    [ATTR_URL_PATH]: entry.path,
    [ATTR_HTTP_RESPONSE_STATUS_CODE]: entry.status,
    "gateway.route": entry.route,
    "gateway.log_id": entry.id,
    "gateway.stream": entry.stream,
    "gateway.attempts": entry.attempts.length,
  };
  put(attributes, ATTR_ERROR_TYPE, entry.errorCode ?? (entry.status >= 500 ? String(entry.status) : null));
  put(attributes, "gateway.virtual_key_id", entry.virtualKeyId);
  put(attributes, "gateway.api_key_id", entry.apiKeyId);
  put(attributes, "gateway.provider", entry.provider);
  put(attributes, "gateway.cost_usd", figures?.costUsd ?? null);
  put(attributes, "gateway.time_to_first_token_ms", entry.timeToFirstTokenMs);
  put(attributes, "gateway.span_id", entry.spanId);
  put(attributes, "gateway.prompt_id", entry.promptId);
  // The caller's own ids, when they are not already the span's trace and parent.
  if (entry.traceId.replaceAll("-", "").toLowerCase() !== traceId) attributes["gateway.trace_id"] = entry.traceId;
  if (entry.parentSpanId !== null && otelSpanId(entry.parentSpanId) === null) attributes["gateway.parent_span_id"] = entry.parentSpanId;
  if (operation !== null) {
    attributes[GEN_AI.operationName] = operation;
    putProvider(attributes, entry.provider);
    put(attributes, GEN_AI.requestModel, entry.model);
    putUsage(attributes, figures);
    put(attributes, GEN_AI.requestMaxTokens, entry.requestParams?.maxTokens ?? null);
    put(attributes, GEN_AI.requestTemperature, entry.requestParams?.temperature ?? null);
    put(attributes, GEN_AI.requestTopP, entry.requestParams?.topP ?? null);
  }
  return attributes;
}

interface AttemptSpan {
  attempt: AttemptRecord;
  index: number;
  /** The try whose answer went to the client: its span lasts until the answer was relayed. */
  answered: boolean;
  operation: string | null;
  requestStart: number;
  requestEnd: number;
  figures: RecordFigures | null;
}

function emitAttemptSpan(tracer: Tracer, parent: Context, span: AttemptSpan): void {
  const { attempt, operation } = span;
  const start = attempt.startedAt ?? span.requestStart;
  const headersAt = start + attempt.latencyMs;
  const attributes: Attributes = {
    "gateway.attempt": span.index,
    "gateway.target_index": attempt.target,
    "gateway.provider": attempt.provider,
    "gateway.upstream.headers_ms": attempt.latencyMs,
  };
  put(attributes, ATTR_HTTP_RESPONSE_STATUS_CODE, attempt.status);
  put(attributes, ATTR_ERROR_TYPE, attempt.errorCode ?? (attempt.status !== null && attempt.status >= 400 ? String(attempt.status) : null));
  if (operation !== null) {
    attributes[GEN_AI.operationName] = operation;
    putProvider(attributes, attempt.provider);
    put(attributes, GEN_AI.requestModel, attempt.model);
    if (span.answered) putUsage(attributes, span.figures);
  }
  const name = operation === null ? `${attempt.provider} upstream` : attempt.model ? `${operation} ${attempt.model}` : operation;
  const client = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime: start, attributes }, parent);
  if (attributes[ATTR_ERROR_TYPE] !== undefined) client.setStatus({ code: SpanStatusCode.ERROR, message: attempt.errorMessage ?? undefined });
  client.end(span.answered ? Math.max(headersAt, span.requestEnd) : headersAt);
}

/**
 * One span per MCP listing and tool call of a tool run the gateway drove (`execute_tool`, as
 * the GenAI conventions name a tool's execution), under the request's span; each is a leaf: what
 * the call did upstream of it is the MCP server's own trace.
 */
function emitToolSpans(tracer: Tracer, parent: Context, entry: LogEntry): void {
  for (const step of entry.toolRun ?? []) {
    if (step.type === "model") continue;
    const attributes: Attributes = { "gateway.mcp.server_label": step.server_label ?? "", "gateway.mcp.round": step.round };
    put(attributes, "gen_ai.tool.name", step.tool);
    put(attributes, ATTR_ERROR_TYPE, step.error === null ? null : step.type);
    const name = step.type === "mcp_call" ? `execute_tool ${step.tool ?? ""}` : `mcp_list_tools ${step.server_label ?? ""}`;
    const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: step.started_at, attributes }, parent);
    if (step.error !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: step.error });
    span.end(step.started_at + step.duration_ms);
  }
}

function emitGuardrailSpans(tracer: Tracer, parent: Context, entry: LogEntry): void {
  const results = (entry.guardrailResults ?? []) as GuardrailResult[];
  for (const timing of entry.guardrailTimings ?? []) {
    for (const result of results) {
      if (result.stage !== timing.stage) continue;
      const attributes: Attributes = {
        "gateway.guardrail.slug": result.guardrail,
        "gateway.guardrail.stage": result.stage,
        "gateway.guardrail.verdict": result.verdict,
        "gateway.guardrail.deny": result.deny,
        "gateway.guardrail.checks": result.checks.map((check) => check.check),
      };
      const span = tracer.startSpan(`guardrail ${result.guardrail}`, { kind: SpanKind.INTERNAL, startTime: timing.startedAt, attributes }, parent);
      span.end(timing.startedAt + timing.durationMs);
    }
  }
}

function putUsage(attributes: Attributes, figures: RecordFigures | null): void {
  if (!figures) return;
  put(attributes, GEN_AI.responseModel, figures.responseModel);
  attributes[GEN_AI.usageInputTokens] = figures.inputTokens;
  attributes[GEN_AI.usageOutputTokens] = figures.outputTokens;
}

function putProvider(attributes: Attributes, provider: string | null): void {
  if (provider === null) return;
  const name = genAiProvider(provider);
  attributes[GEN_AI.providerName] = name;
  attributes[GEN_AI.system] = name;
}

/** Attributes hold no null: an unknown value is left out. */
function put(attributes: Attributes, key: string, value: string | number | boolean | null): void {
  if (value !== null) attributes[key] = value;
}
