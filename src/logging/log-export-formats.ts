import type { LogRecord } from "../records/log-record.ts";
import { logRecordView, logSummaryView } from "./log-view.ts";

/** The export's file formats. */
export const EXPORT_FORMATS = {
  jsonl: { contentType: "application/x-ndjson", extension: "jsonl" },
  csv: { contentType: "text/csv; charset=utf-8", extension: "csv" },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

type Cell = string | number | boolean | null;

/** The CSV columns, in order, and how each reads a record. Documented in openapi/gateway.yaml. */
const CSV_COLUMNS: ReadonlyArray<readonly [string, (record: LogRecord) => Cell]> = [
  ["id", (r) => r.id],
  ["created_at", (r) => r.createdAt],
  ["status", (r) => r.status],
  ["success", (r) => r.success],
  ["route", (r) => r.route],
  ["provider", (r) => r.provider],
  ["model", (r) => r.model],
  ["user", (r) => r.user],
  ["virtual_key_id", (r) => r.virtualKeyId],
  ["api_key_id", (r) => r.apiKeyId],
  ["config_id", (r) => r.configId],
  ["config_version", (r) => r.configVersion],
  ["prompt_id", (r) => r.promptId],
  ["prompt_version", (r) => r.promptVersion],
  ["experiment_id", (r) => r.experimentId],
  ["experiment_variant", (r) => r.experimentVariant],
  ["trace_id", (r) => r.traceId],
  ["span_id", (r) => r.spanId],
  ["parent_span_id", (r) => r.parentSpanId],
  ["span_name", (r) => r.spanName],
  ["stream", (r) => r.stream],
  ["prompt_tokens", (r) => r.promptTokens],
  ["completion_tokens", (r) => r.completionTokens],
  ["total_tokens", (r) => r.totalTokens],
  ["cached_tokens", (r) => r.cachedTokens],
  ["reasoning_tokens", (r) => r.reasoningTokens],
  ["cost_usd", (r) => r.costUsd],
  ["latency_ms", (r) => r.latencyMs],
  ["time_to_first_token_ms", (r) => r.timeToFirstTokenMs],
  ["metadata", (r) => JSON.stringify(r.metadata)],
  ["error_code", (r) => r.errorCode],
  ["error_message", (r) => r.errorMessage],
];

const CSV_BODY_COLUMNS: ReadonlyArray<readonly [string, (record: LogRecord) => Cell]> = [
  ["request_body", (r) => r.requestBody],
  ["response_body", (r) => r.responseBody],
];

/** The CSV columns of an export, bodies last when asked for. */
export function csvColumns(includeBodies: boolean): readonly string[] {
  return (includeBodies ? [...CSV_COLUMNS, ...CSV_BODY_COLUMNS] : CSV_COLUMNS).map(([name]) => name);
}

/** Text a spreadsheet would run as a formula (or that hides one behind a tab or line break). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Text that must be quoted (RFC 4180 §2.6). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell: null is empty, numbers and booleans as written. Text that starts like a formula
 * gets a leading `'` (OWASP's CSV injection advice), then RFC 4180 quoting when it needs it.
 */
export function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(cells: readonly string[]): string {
  return `${cells.join(",")}\r\n`;
}

/** How an export writes its header (CSV only) and each record. */
export interface ExportWriter {
  header: string;
  line(record: LogRecord): string;
}

/** The writer of a format: JSONL lines are the API's views (summary, or whole with bodies). */
export function exportWriter(format: ExportFormat, includeBodies: boolean): ExportWriter {
  if (format === "jsonl") {
    const view = includeBodies ? logRecordView : logSummaryView;
    return { header: "", line: (record) => `${JSON.stringify(view(record))}\n` };
  }
  const columns = includeBodies ? [...CSV_COLUMNS, ...CSV_BODY_COLUMNS] : CSV_COLUMNS;
  return {
    header: csvLine(columns.map(([name]) => csvCell(name))),
    line: (record) => csvLine(columns.map(([, read]) => csvCell(read(record)))),
  };
}
