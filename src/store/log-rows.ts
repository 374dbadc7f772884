import type { Selectable } from "kysely";
import type { LogRecord } from "../logging/log-record.ts";
import type { LogMetadataTable, LogsTable } from "./schema.ts";

/** Every `logs` column except the two bodies: what listing selects. */
export const LOG_SUMMARY_COLUMNS = [
  "id", "created_at", "organisation_id", "workspace_id", "api_key_id", "virtual_key_id",
  "provider", "model", "route", "method", "path", "status", "success", "stream", "latency_ms",
  "time_to_first_token_ms", "prompt_tokens", "completion_tokens", "total_tokens",
  "cached_tokens", "reasoning_tokens", "cost_usd", "end_user", "metadata", "trace_id",
  "span_id", "parent_span_id", "span_name", "error_code", "error_message", "prompt_id",
  "prompt_version", "guardrail_results", "request_body_truncated", "request_body_bytes",
  "response_body_truncated", "response_body_bytes",
] as const satisfies ReadonlyArray<keyof LogsTable>;

/** A `logs` row as listing reads it; the bodies are present only when selected. */
export type LogRow = Omit<Selectable<LogsTable>, "request_body" | "response_body"> &
  Partial<Pick<Selectable<LogsTable>, "request_body" | "response_body">>;

/** The `logs` row of a record. */
export function toLogRow(record: LogRecord): LogsTable {
  return {
    id: record.id,
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
    success: record.success ? 1 : 0,
    stream: record.stream ? 1 : 0,
    latency_ms: record.latencyMs,
    time_to_first_token_ms: record.timeToFirstTokenMs,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    total_tokens: record.totalTokens,
    cached_tokens: record.cachedTokens,
    reasoning_tokens: record.reasoningTokens,
    cost_usd: record.costUsd,
    end_user: record.user,
    metadata: JSON.stringify(record.metadata),
    trace_id: record.traceId,
    span_id: record.spanId,
    parent_span_id: record.parentSpanId,
    span_name: record.spanName,
    request_body: record.requestBody,
    request_body_truncated: record.requestBodyTruncated ? 1 : 0,
    request_body_bytes: record.requestBodyBytes,
    response_body: record.responseBody,
    response_body_truncated: record.responseBodyTruncated ? 1 : 0,
    response_body_bytes: record.responseBodyBytes,
    error_code: record.errorCode,
    error_message: record.errorMessage,
    prompt_id: record.promptId,
    prompt_version: record.promptVersion,
    guardrail_results: record.guardrailResults,
  };
}

/** The `log_metadata` rows of a record: one per metadata pair. */
export function toMetadataRows(record: LogRecord): LogMetadataTable[] {
  return Object.entries(record.metadata).map(([key, value]) => ({
    log_id: record.id,
    workspace_id: record.workspaceId,
    key,
    value,
  }));
}

/** The record of a row; bodies not selected come back as null. */
export function fromLogRow(row: LogRow): LogRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    apiKeyId: row.api_key_id,
    virtualKeyId: row.virtual_key_id,
    provider: row.provider,
    model: row.model,
    route: row.route,
    method: row.method,
    path: row.path,
    status: row.status,
    success: row.success === 1,
    stream: row.stream === 1,
    latencyMs: row.latency_ms,
    timeToFirstTokenMs: row.time_to_first_token_ms,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    totalTokens: row.total_tokens,
    cachedTokens: row.cached_tokens,
    reasoningTokens: row.reasoning_tokens,
    costUsd: row.cost_usd,
    user: row.end_user,
    metadata: parseMetadata(row.metadata),
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    spanName: row.span_name,
    requestBody: row.request_body ?? null,
    requestBodyTruncated: row.request_body_truncated === 1,
    requestBodyBytes: row.request_body_bytes,
    responseBody: row.response_body ?? null,
    responseBodyTruncated: row.response_body_truncated === 1,
    responseBodyBytes: row.response_body_bytes,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    promptId: row.prompt_id,
    promptVersion: row.prompt_version,
    guardrailResults: row.guardrail_results,
  };
}

/** The stored JSON object, keeping only string values; anything unreadable becomes `{}`. */
function parseMetadata(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  const metadata: Record<string, string> = {};
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return metadata;
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === "string") metadata[key] = value;
  }
  return metadata;
}
