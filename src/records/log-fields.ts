import type { LogRecord } from "./log-record.ts";
import { parseAttempts, parseMetadata, parseToolRun } from "./stored-json.ts";

/**
 * The one declaration of a log record's fields. The stored row (`LogsTable`), the row mapping
 * both ways, the listing's columns, the entry the request thread hands over and its packed form,
 * and the API view all follow from this table; `LogRecord` documents what each field means.
 * `npm run codegen` checks it against the document's `LogSummary` and `LogRecord`
 * (`scripts/codegen/log-shape.ts`), and the dashboard reads those through the generated types.
 */

/** How a field is stored: booleans as 0/1, JSON as text. */
export type ColumnKind = "text" | "integer" | "real" | "boolean" | "json";

interface Field<K extends ColumnKind> {
  column: string;
  kind: K;
  /** The value may be null (the record's type says so; the document's type must allow it). */
  nullable?: true;
  /** Where the API view puts it: `name`, or `group.name` inside an object. */
  api: string;
  /** A body column: listing does not read it, only `get` does. */
  body?: true;
  /** Only in the full view (`GET /v1/logs/{id}`), not in the listing's summaries. */
  detail?: true;
  /** Handed over by the request thread as is; the others are built by `toLogRecord`. */
  entry?: true;
  /** How the view shows the value, when not as it is (see `log-view.ts`). */
  view?: "json-body" | "guardrail-results" | "attempts";
}

/** `nullable` is set exactly when the type admits null. */
type NullableFor<T> = null extends T ? { nullable: true } : { nullable?: never };

/** The spec a field of type `T` may have: the kind must fit the type, and JSON needs a reader. */
type FieldFor<T> = NullableFor<T> &
  ([T] extends [boolean]
    ? Field<"boolean">
    : [T] extends [number | null]
      ? Field<"integer" | "real">
      : [T] extends [string | null]
        ? Field<"text">
        : Field<"json"> & { parse(text: string): T });

export const LOG_FIELDS = {
  id: { column: "id", kind: "text", api: "id", entry: true },
  createdAt: { column: "created_at", kind: "text", api: "created_at", entry: true },
  organisationId: { column: "organisation_id", kind: "text", api: "organisation_id", entry: true },
  workspaceId: { column: "workspace_id", kind: "text", api: "workspace_id", entry: true },
  apiKeyId: { column: "api_key_id", kind: "text", nullable: true, api: "api_key_id", entry: true },
  virtualKeyId: { column: "virtual_key_id", kind: "text", nullable: true, api: "virtual_key_id", entry: true },
  provider: { column: "provider", kind: "text", nullable: true, api: "provider", entry: true },
  model: { column: "model", kind: "text", nullable: true, api: "model", entry: true },
  route: { column: "route", kind: "text", api: "route", entry: true },
  method: { column: "method", kind: "text", api: "method", entry: true },
  path: { column: "path", kind: "text", api: "path", entry: true },
  status: { column: "status", kind: "integer", api: "status", entry: true },
  success: { column: "success", kind: "boolean", api: "success" },
  stream: { column: "stream", kind: "boolean", api: "stream", entry: true },
  latencyMs: { column: "latency_ms", kind: "real", api: "latency_ms", entry: true },
  timeToFirstTokenMs: { column: "time_to_first_token_ms", kind: "real", nullable: true, api: "time_to_first_token_ms", entry: true },
  promptTokens: { column: "prompt_tokens", kind: "integer", api: "usage.prompt_tokens" },
  completionTokens: { column: "completion_tokens", kind: "integer", api: "usage.completion_tokens" },
  totalTokens: { column: "total_tokens", kind: "integer", api: "usage.total_tokens" },
  cachedTokens: { column: "cached_tokens", kind: "integer", api: "usage.cached_tokens" },
  reasoningTokens: { column: "reasoning_tokens", kind: "integer", api: "usage.reasoning_tokens" },
  webSearches: { column: "web_searches", kind: "integer", api: "usage.web_searches" },
  costUsd: { column: "cost_usd", kind: "real", nullable: true, api: "cost_usd" },
  costSavedUsd: { column: "cost_saved_usd", kind: "real", nullable: true, api: "cost_saved_usd" },
  costNote: { column: "cost_note", kind: "text", nullable: true, api: "cost_note" },
  cacheStatus: { column: "cache_status", kind: "text", nullable: true, api: "cache_status", entry: true },
  cacheSimilarity: { column: "cache_similarity", kind: "real", nullable: true, api: "cache_similarity", entry: true },
  cacheSourceLogId: { column: "cache_source_log_id", kind: "text", nullable: true, api: "cache_source_log_id", entry: true },
  cacheNote: { column: "cache_note", kind: "text", nullable: true, api: "cache_note", entry: true },
  // `user` is a reserved word in PostgreSQL.
  user: { column: "end_user", kind: "text", nullable: true, api: "user", entry: true },
  // Mirrored row by row in `log_metadata`, so metadata filters are plain indexed SQL.
  metadata: { column: "metadata", kind: "json", api: "metadata", entry: true, parse: parseMetadata },
  traceId: { column: "trace_id", kind: "text", api: "trace_id", entry: true },
  spanId: { column: "span_id", kind: "text", nullable: true, api: "span_id", entry: true },
  parentSpanId: { column: "parent_span_id", kind: "text", nullable: true, api: "parent_span_id", entry: true },
  spanName: { column: "span_name", kind: "text", nullable: true, api: "span_name", entry: true },
  requestBody: { column: "request_body", kind: "text", nullable: true, api: "request.body", body: true, detail: true, entry: true, view: "json-body" },
  requestBodyTruncated: { column: "request_body_truncated", kind: "boolean", api: "request.truncated", detail: true, entry: true },
  // `double precision`, so a body past 2 GiB still fits.
  requestBodyBytes: { column: "request_body_bytes", kind: "real", nullable: true, api: "request.size_bytes", detail: true, entry: true },
  responseBody: { column: "response_body", kind: "text", nullable: true, api: "response.body", body: true, detail: true, view: "json-body" },
  responseBodyTruncated: { column: "response_body_truncated", kind: "boolean", api: "response.truncated", detail: true },
  responseBodyBytes: { column: "response_body_bytes", kind: "real", nullable: true, api: "response.size_bytes", detail: true },
  errorCode: { column: "error_code", kind: "text", nullable: true, api: "error.code", entry: true },
  errorMessage: { column: "error_message", kind: "text", nullable: true, api: "error.message", entry: true },
  promptId: { column: "prompt_id", kind: "text", nullable: true, api: "prompt_id", entry: true },
  promptVersion: { column: "prompt_version", kind: "integer", nullable: true, api: "prompt_version", entry: true },
  configId: { column: "config_id", kind: "text", nullable: true, api: "config_id", entry: true },
  configVersion: { column: "config_version", kind: "integer", nullable: true, api: "config_version", entry: true },
  experimentId: { column: "experiment_id", kind: "text", nullable: true, api: "experiment_id", entry: true },
  experimentVariant: { column: "experiment_variant", kind: "text", nullable: true, api: "experiment_variant", entry: true },
  guardrailResults: { column: "guardrail_results", kind: "text", nullable: true, api: "guardrail_results", detail: true, view: "guardrail-results" },
  attempts: { column: "attempts", kind: "json", api: "attempts", entry: true, view: "attempts", parse: parseAttempts },
  toolRun: { column: "tool_run", kind: "json", api: "tool_run", body: true, detail: true, entry: true, parse: parseToolRun },
} as const satisfies { [F in keyof LogRecord]: FieldFor<LogRecord[F]> };

export type LogFieldName = keyof typeof LOG_FIELDS;
type Spec<F extends LogFieldName> = (typeof LOG_FIELDS)[F];

/** The field names in declaration order, which is the column order of an insert. */
export const LOG_FIELD_NAMES = Object.keys(LOG_FIELDS) as LogFieldName[];

/** How a field's value is stored: 0/1 for booleans, text for JSON, as it is otherwise. */
type ColumnValue<F extends LogFieldName> = Spec<F>["kind"] extends "boolean" ? number : Spec<F>["kind"] extends "json" ? string : LogRecord[F];

/** One `logs` row. `id` is a UUIDv7, so ordering by id is ordering by time. */
export type LogsTable = { [F in LogFieldName as Spec<F>["column"]]: ColumnValue<F> };

type ColumnOf<F> = F extends LogFieldName ? Spec<F>["column"] : never;
type FieldsWith<Flag extends string> = { [F in LogFieldName]: Spec<F> extends Record<Flag, true> ? F : never }[LogFieldName];

/** The body columns, which only `get` reads. */
export type LogBodyColumn = ColumnOf<FieldsWith<"body">>;
/** The fields the request thread hands over as they are. */
export type LogEntryFieldName = FieldsWith<"entry">;
/** The fields only the full view shows. */
export type LogDetailFieldName = FieldsWith<"detail">;

function names(keep: (name: LogFieldName) => boolean): LogFieldName[] {
  return LOG_FIELD_NAMES.filter(keep);
}

const has = (name: LogFieldName, flag: "body" | "detail" | "entry"): boolean => flag in LOG_FIELDS[name];

export const LOG_ENTRY_FIELD_NAMES = names((name) => has(name, "entry")) as LogEntryFieldName[];
export const LOG_SUMMARY_FIELD_NAMES = names((name) => !has(name, "detail"));
export const LOG_DETAIL_FIELD_NAMES = names((name) => has(name, "detail")) as LogDetailFieldName[];

/** Every `logs` column, in declaration order. */
export const LOG_COLUMNS = LOG_FIELD_NAMES.map((name) => LOG_FIELDS[name].column) as ReadonlyArray<keyof LogsTable>;
/** Every `logs` column but the bodies: what listing selects. */
export const LOG_LISTED_COLUMNS = names((name) => !has(name, "body")).map((name) => LOG_FIELDS[name].column) as ReadonlyArray<
  Exclude<keyof LogsTable, LogBodyColumn>
>;
