import type { LogRecord } from "./log-record.ts";

/** What the response was, kept raw until the record is built. */
export type LoggedResponse =
  | { kind: "json-text"; text: string }
  | { kind: "stream"; chunks: string[] }
  | { kind: "error"; body: unknown };

/**
 * One finished request as the request thread hands it to the log writer: plain values and
 * raw texts only. Parsing the response, assembling a stream and pricing happen later, in
 * `toLogRecord`, on whichever thread stores the batch. The fields it shares with the stored
 * record mean the same there; `requestBody` is the client's own text when it sent the body.
 */
export type LogEntry = Pick<
  LogRecord,
  | "id" | "createdAt" | "organisationId" | "workspaceId" | "apiKeyId" | "virtualKeyId" | "provider"
  | "model" | "route" | "method" | "path" | "status" | "stream" | "latencyMs" | "timeToFirstTokenMs"
  | "user" | "metadata" | "traceId" | "spanId" | "parentSpanId" | "spanName" | "requestBody"
  | "errorCode" | "errorMessage" | "promptId" | "promptVersion"
> & {
  response: LoggedResponse | null;
  /** Every guardrail check that ran, serialised when the record is built. */
  guardrailResults: unknown[] | null;
};

/** The fields packed as they are, in order; `metadata` and `response` follow, flattened. */
const PLAIN_FIELDS = [
  "id", "createdAt", "organisationId", "workspaceId", "apiKeyId", "virtualKeyId", "provider",
  "model", "route", "method", "path", "status", "stream", "latencyMs", "timeToFirstTokenMs", "user",
  "traceId", "spanId", "parentSpanId", "spanName", "requestBody", "errorCode", "errorMessage",
  "promptId", "promptVersion", "guardrailResults",
] as const satisfies ReadonlyArray<keyof LogEntry>;

// Fails to compile when a field of LogEntry is packed nowhere.
type Unpacked = Exclude<keyof LogEntry, (typeof PLAIN_FIELDS)[number] | "metadata" | "response">;
const everyFieldPacked: Unpacked extends never ? true : never = true;
void everyFieldPacked;

/**
 * An entry as a flat positional array, for posting to the log worker: the structured clone
 * costs per object more than per string, so field names, the usual empty metadata and the
 * response's wrapper object are left out.
 */
export function packLogEntry(entry: LogEntry): unknown[] {
  const packed: unknown[] = PLAIN_FIELDS.map((field) => entry[field]);
  const { response } = entry;
  packed.push(isEmpty(entry.metadata) ? null : entry.metadata, response?.kind ?? null, response === null ? null : payloadOf(response));
  return packed;
}

export function unpackLogEntry(packed: readonly unknown[]): LogEntry {
  const entry: Record<string, unknown> = {};
  PLAIN_FIELDS.forEach((field, i) => (entry[field] = packed[i]));
  const at = PLAIN_FIELDS.length;
  entry.metadata = packed[at] ?? {};
  entry.response = responseOf(packed[at + 1] as LoggedResponse["kind"] | null, packed[at + 2]);
  return entry as unknown as LogEntry;
}

function payloadOf(response: LoggedResponse): unknown {
  if (response.kind === "json-text") return response.text;
  if (response.kind === "stream") return response.chunks;
  return response.body;
}

function responseOf(kind: LoggedResponse["kind"] | null, payload: unknown): LoggedResponse | null {
  if (kind === "json-text") return { kind, text: payload as string };
  if (kind === "stream") return { kind, chunks: payload as string[] };
  if (kind === "error") return { kind, body: payload };
  return null;
}

function isEmpty(record: Record<string, string>): boolean {
  for (const _ in record) return false;
  return true;
}
