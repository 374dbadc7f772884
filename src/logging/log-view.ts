import type { GuardrailResult, LogAttempt, LogRecord as LogRecordView, LogSummary } from "../generated/schemas.gen.ts";
import { nestedDeeperThan } from "../validation/json-depth.ts";
import {
  LOG_DETAIL_FIELD_NAMES,
  LOG_FIELDS,
  LOG_SUMMARY_FIELD_NAMES,
  type LogDetailFieldName,
  type LogFieldName,
} from "../records/log-fields.ts";
import type { AttemptRecord, LogRecord } from "../records/log-record.ts";

/** How a field marked `view` in `log-fields.ts` is shown. */
const VIEWS = {
  "json-body": (text: string | null): unknown => parseBody(text),
  "guardrail-results": (text: string | null): GuardrailResult[] => guardrailResults(text),
  attempts: (attempts: AttemptRecord[]): LogAttempt[] => attempts.map(attemptView),
} as const;

/** Groups shown as null when none of their members has a value. */
const NULL_WHEN_EMPTY = new Set(["error"]);

/** The API shape of a log record without bodies (listing). */
export function logSummaryView(record: LogRecord): LogSummary {
  return { object: "log", ...viewOf(record, LOG_SUMMARY_FIELD_NAMES) } as LogSummary;
}

/** The whole record, bodies parsed back into JSON. */
export function logRecordView(record: LogRecord): LogRecordView {
  return { ...logSummaryView(record), ...viewOf(record, LOG_DETAIL_FIELD_NAMES) } as LogRecordView;
}

function viewOf(record: LogRecord, names: readonly LogFieldName[]): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const name of names) {
    const field: { api: string; view?: keyof typeof VIEWS } = LOG_FIELDS[name];
    const value = field.view ? (VIEWS[field.view] as (value: unknown) => unknown)(record[name]) : record[name];
    const [group, member] = field.api.split(".") as [string, string | undefined];
    if (member === undefined) view[group] = value;
    else ((view[group] ??= {}) as Record<string, unknown>)[member] = value;
  }
  for (const group of NULL_WHEN_EMPTY) {
    const members = view[group] as Record<string, unknown> | undefined;
    if (members && Object.values(members).every((value) => value === null || value === "")) view[group] = null;
  }
  return view;
}

function attemptView(attempt: AttemptRecord): LogAttempt {
  return {
    target: attempt.target,
    path: attempt.path,
    retry: attempt.retry,
    provider: attempt.provider,
    model: attempt.model,
    status: attempt.status,
    latency_ms: attempt.latencyMs,
    error_code: attempt.errorCode,
    error_message: attempt.errorMessage,
    note: attempt.note ?? null,
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

type Head<P> = P extends `${infer H}.${string}` ? H : P;
type ApiHead<F extends LogFieldName> = Head<(typeof LOG_FIELDS)[F]["api"]>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Fail to compile when the field table and the document's LogSummary/LogRecord disagree on a property.
const summaryMatches: Same<ApiHead<Exclude<LogFieldName, LogDetailFieldName>> | "object", keyof LogSummary> = true;
const recordMatches: Same<ApiHead<LogFieldName> | "object", keyof LogRecordView> = true;
// Fail to compile when a field's `view` takes another type than the field's.
type ViewFits<F extends LogFieldName> = (typeof LOG_FIELDS)[F] extends { view: infer V extends keyof typeof VIEWS }
  ? LogRecord[F] extends Parameters<(typeof VIEWS)[V]>[0] ? true : false
  : true;
const viewsFit: Same<{ [F in LogFieldName]: ViewFits<F> }[LogFieldName], true> = true;
void summaryMatches;
void recordMatches;
void viewsFit;

/** Cursors are opaque to clients: the base64url of the last log id of a page. */
export function encodeCursor(logId: string): string {
  return Buffer.from(logId, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): string | null {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? id : null;
}
