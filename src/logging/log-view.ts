import type { GuardrailResult, LogRecord as LogRecordView, LogSummary } from "../generated/schemas.gen.ts";
import type { LogRecord } from "./log-record.ts";
import { nestedDeeperThan } from "../validation/json-depth.ts";

/** The API shape of a log record without bodies (listing). */
export function logSummaryView(record: LogRecord): LogSummary {
  return {
    id: record.id,
    object: "log",
    created_at: record.createdAt,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    api_key_id: record.apiKeyId,
    virtual_key_id: record.virtualKeyId,
    provider: record.provider,
    model: record.model,
    route: record.route,
    method: record.method,
    path: record.path,
    status: record.status,
    success: record.success,
    stream: record.stream,
    latency_ms: record.latencyMs,
    time_to_first_token_ms: record.timeToFirstTokenMs,
    usage: {
      prompt_tokens: record.promptTokens,
      completion_tokens: record.completionTokens,
      total_tokens: record.totalTokens,
      cached_tokens: record.cachedTokens,
      reasoning_tokens: record.reasoningTokens,
    },
    cost_usd: record.costUsd,
    user: record.user,
    metadata: record.metadata,
    trace_id: record.traceId,
    span_id: record.spanId,
    parent_span_id: record.parentSpanId,
    span_name: record.spanName,
    prompt_id: record.promptId,
    prompt_version: record.promptVersion,
    error: record.errorCode || record.errorMessage ? { code: record.errorCode, message: record.errorMessage } : null,
  };
}

/** The whole record, bodies parsed back into JSON. */
export function logRecordView(record: LogRecord): LogRecordView {
  return {
    ...logSummaryView(record),
    request: { body: parseBody(record.requestBody), truncated: record.requestBodyTruncated, size_bytes: record.requestBodyBytes },
    response: { body: parseBody(record.responseBody), truncated: record.responseBodyTruncated, size_bytes: record.responseBodyBytes },
    guardrail_results: guardrailResults(record.guardrailResults),
  };
}

/** The stored JSON array of guardrail results; none when nothing ran (or the text is unreadable). */
function guardrailResults(text: string | null): GuardrailResult[] {
  if (text === null) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as GuardrailResult[]) : [];
  } catch {
    return [];
  }
}

/** A stored body as JSON, or as its text when it is not JSON or too deep to serialise again. */
function parseBody(text: string | null): unknown {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return nestedDeeperThan(value) ? text : value;
  } catch {
    return text;
  }
}

/** Cursors are opaque to clients: the base64url of the last log id of a page. */
export function encodeCursor(logId: string): string {
  return Buffer.from(logId, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): string | null {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? id : null;
}
