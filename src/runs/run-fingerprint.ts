import { createHash } from "node:crypto";

/**
 * What makes two requests of a run the same, for `repeat_limit`: the operation and the JSON body
 * as sent upstream, normalised (object keys sorted at every level, no whitespace, numbers and
 * strings as JSON writes them), without `stream` and `stream_options` (a streamed and a plain
 * copy are one request). Two tool calls are the same when their server, tool and arguments
 * (normalised alike) are. The fingerprint is the SHA-256 of that text. Pure.
 */
export function requestFingerprint(operationId: string, body: unknown): string {
  const kept = body !== null && typeof body === "object" && !Array.isArray(body) ? withoutStreaming(body as Record<string, unknown>) : body;
  return digest(`request\n${operationId}\n${canonicalJson(kept)}`);
}

export function toolCallFingerprint(server: string, tool: string, args: unknown): string {
  return digest(`tool\n${server}\n${tool}\n${canonicalJson(args ?? {})}`);
}

/** JSON with every object's keys sorted: the same value always writes the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(",")}}`;
}

function withoutStreaming(body: Record<string, unknown>): Record<string, unknown> {
  if (!("stream" in body) && !("stream_options" in body)) return body;
  const { stream: _stream, stream_options: _options, ...rest } = body;
  return rest;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
