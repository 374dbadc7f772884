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

/** Every field of `LogEntry`, in the order `packLogEntry` writes them. */
const FIELDS = [
  "id", "createdAt", "organisationId", "workspaceId", "apiKeyId", "virtualKeyId", "provider",
  "model", "route", "method", "path", "status", "stream", "latencyMs", "timeToFirstTokenMs", "user",
  "metadata", "traceId", "spanId", "parentSpanId", "spanName", "requestBody", "response",
  "errorCode", "errorMessage", "promptId", "promptVersion", "guardrailResults",
] as const satisfies ReadonlyArray<keyof LogEntry>;

// Fails to compile when a field of LogEntry is missing from FIELDS.
type Unlisted = Exclude<keyof LogEntry, (typeof FIELDS)[number]>;
const everyFieldListed: Unlisted extends never ? true : never = true;
void everyFieldListed;

/** An entry as a positional array: posting arrays to a worker copies half as much as objects. */
export function packLogEntry(entry: LogEntry): unknown[] {
  return FIELDS.map((field) => entry[field]);
}

export function unpackLogEntry(packed: readonly unknown[]): LogEntry {
  const entry: Record<string, unknown> = {};
  for (let i = 0; i < FIELDS.length; i++) entry[FIELDS[i] as string] = packed[i];
  return entry as unknown as LogEntry;
}
