import { LOG_ENTRY_FIELD_NAMES, type LogEntryFieldName } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";

/** What the response was, kept raw until the record is built. */
export type LoggedResponse =
  /**
   * `text` is the answer's first bytes, null when the answer is not text (binary, e.g. audio);
   * when `truncated`, `tail` holds its last bytes (for `usage`).
   */
  | { kind: "json-text"; text: string | null; totalBytes: number; truncated: boolean; tail: string | null }
  /**
   * The data of the stream's events; when `truncated`, content events past the log's limit were
   * left out (usage chunks are kept). The assembled body is cut to `maxBytes`.
   */
  | { kind: "stream"; chunks: string[]; totalBytes: number; truncated: boolean; maxBytes: number }
  | { kind: "error"; body: unknown };

/**
 * One finished request as the request thread hands it to the log writer: plain values and
 * raw texts only. Parsing the response, assembling a stream and pricing happen later, in
 * `toLogRecord`, on whichever thread stores the batch. The fields it shares with the stored
 * record (those marked `entry` in `log-fields.ts`) mean the same there; `requestBody` is the
 * client's own text when it sent the body.
 */
export type LogEntry = Pick<LogRecord, LogEntryFieldName> & {
  response: LoggedResponse | null;
  /** Every guardrail check that ran, serialised when the record is built. */
  guardrailResults: unknown[] | null;
  /** The name of the reader of its answer (`OperationDescriptor.answers`, found by `answerReader` in `log-record-builder.ts`). */
  format: string;
  /** The operation's `gen_ai.operation.name` (telemetry); null for one that is no GenAI call. */
  genAiOperation: string | null;
  /** A cost the gateway sets itself (an MCP tool call's price); absent or null: priced from the answer. */
  fixedCostUsd?: number | null;
  /** For telemetry on the request thread only: never packed for the worker, never stored. */
  requestParams?: RequestParams | null;
  /** For telemetry on the request thread only: when each guardrail stage ran. */
  guardrailTimings?: GuardrailTiming[] | null;
};

/** The request's generation parameters where it states them (GenAI span attributes). */
export interface RequestParams {
  maxTokens: number | null;
  temperature: number | null;
  topP: number | null;
}

/** One guardrail stage's run: its wall-clock start (epoch ms) and how long it took. */
export interface GuardrailTiming {
  stage: "input" | "output";
  startedAt: number;
  durationMs: number;
}

/** The fields packed as they are, in order; `metadata` and `response` follow, flattened. */
const PLAIN_FIELDS = [...LOG_ENTRY_FIELD_NAMES.filter((name) => name !== "metadata"), "guardrailResults", "format", "genAiOperation", "fixedCostUsd"] as const;

/**
 * An entry as a flat positional array, for posting to the log worker: the structured clone
 * costs per object more than per string (a quarter less than plain objects for a batch of
 * 1 KB chats), so field names, the usual empty metadata and the response's wrapper are left out.
 */
export function packLogEntry(entry: LogEntry): unknown[] {
  const packed: unknown[] = PLAIN_FIELDS.map((field) => entry[field]);
  const { response } = entry;
  packed.push(isEmpty(entry.metadata) ? null : entry.metadata, response?.kind ?? null);
  if (response !== null) packed.push(...payloadOf(response));
  return packed;
}

export function unpackLogEntry(packed: readonly unknown[]): LogEntry {
  const entry: Record<string, unknown> = {};
  PLAIN_FIELDS.forEach((field, i) => (entry[field] = packed[i]));
  const at = PLAIN_FIELDS.length;
  entry.metadata = packed[at] ?? {};
  entry.response = responseOf(packed[at + 1] as LoggedResponse["kind"] | null, packed.slice(at + 2));
  return entry as unknown as LogEntry;
}

function payloadOf(response: LoggedResponse): unknown[] {
  if (response.kind === "json-text") return [response.text, response.totalBytes, response.truncated, response.tail];
  if (response.kind === "stream") return [response.chunks, response.totalBytes, response.truncated, response.maxBytes];
  return [response.body];
}

function responseOf(kind: LoggedResponse["kind"] | null, payload: readonly unknown[]): LoggedResponse | null {
  const [first, totalBytes, truncated, last] = payload;
  if (kind === "json-text") {
    return { kind, text: first as string | null, totalBytes: totalBytes as number, truncated: truncated as boolean, tail: last as string | null };
  }
  if (kind === "stream") {
    return { kind, chunks: first as string[], totalBytes: totalBytes as number, truncated: truncated as boolean, maxBytes: last as number };
  }
  if (kind === "error") return { kind, body: first };
  return null;
}

function isEmpty(record: Record<string, string>): boolean {
  for (const _ in record) return false;
  return true;
}
