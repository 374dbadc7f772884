/** What the response was, kept raw until the record is built. */
export type LoggedResponse =
  | { kind: "json-text"; text: string }
  | { kind: "stream"; chunks: string[] }
  | { kind: "error"; body: unknown };

/**
 * One finished request as the request thread hands it to the log writer: plain values and
 * raw texts only. Parsing the response, assembling a stream and pricing happen later, in
 * `toLogRecord`, on whichever thread stores the batch.
 */
export interface LogEntry {
  id: string;
  createdAt: string;
  organisationId: string;
  workspaceId: string;
  apiKeyId: string | null;
  virtualKeyId: string | null;
  provider: string | null;
  model: string | null;
  route: string;
  method: string;
  path: string;
  status: number;
  stream: boolean;
  latencyMs: number;
  ttftMs: number | null;
  user: string | null;
  metadata: Record<string, string>;
  traceId: string;
  spanId: string | null;
  parentSpanId: string | null;
  spanName: string | null;
  /** The request body as JSON text: the client's own bytes when it sent the body. */
  requestBody: string | null;
  response: LoggedResponse | null;
  errorCode: string | null;
  errorMessage: string | null;
  promptId: string | null;
  promptVersion: number | null;
  guardrailResults: unknown[] | null;
}

/** Every field of `LogEntry`, in the order `packLogEntry` writes them. */
const FIELDS = [
  "id", "createdAt", "organisationId", "workspaceId", "apiKeyId", "virtualKeyId", "provider",
  "model", "route", "method", "path", "status", "stream", "latencyMs", "ttftMs", "user",
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
