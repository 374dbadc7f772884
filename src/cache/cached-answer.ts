/**
 * One cached answer. A JSON answer is kept as its text; a stream as the sequence of its
 * server-sent events in the client's format (translated, as the client got them), replayed one
 * event per chunk.
 */
export type CachedAnswer = (
  | { kind: "json"; status: number; contentType: string; provider: string; model: string | null; body: string }
  | { kind: "sse"; status: number; provider: string; model: string | null; events: string[] }
) & {
  /** The log id of the request whose answer this is (absent in entries written without it). */
  logId?: string | null;
};

/** Roughly what an entry holds in memory: its texts in UTF-16 plus a fixed overhead. */
export function cachedAnswerBytes(answer: CachedAnswer): number {
  const text = answer.kind === "json" ? answer.body.length : answer.events.reduce((sum, event) => sum + event.length, 0);
  return text * 2 + 256;
}

/** Reads an entry written by `JSON.stringify`; null for anything else (a foreign or older value). */
export function parseCachedAnswer(text: string): CachedAnswer | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") return null;
  const entry = value as Record<string, unknown>;
  const common = typeof entry.status === "number" && typeof entry.provider === "string" && (entry.model === null || typeof entry.model === "string");
  if (!common) return null;
  if (entry.kind === "json" && typeof entry.body === "string" && typeof entry.contentType === "string") return entry as CachedAnswer;
  if (entry.kind === "sse" && Array.isArray(entry.events) && entry.events.every((event) => typeof event === "string")) return entry as CachedAnswer;
  return null;
}
