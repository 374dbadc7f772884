import { BodyCapture } from "../core/body-capture.ts";
import type { ProxyResponse } from "../core/upstream-answer.ts";
import type { RequestLog } from "../logging/request-log.ts";
import type { CachedAnswer } from "./cached-answer.ts";

const encoder = new TextEncoder();

/**
 * A cached answer as the client's response, with the log filled in as the upstream's answer
 * would have filled it (provider, model, body, usage), so the record builder prices the usage
 * as the cost saved. No upstream header is replayed: rate limits of a past call would mislead.
 */
export function replayAnswer(answer: CachedAnswer, log: RequestLog, maxLoggedBytes: number): ProxyResponse {
  log.provider = answer.provider;
  log.model = answer.model ?? log.model;
  log.markFirstToken();
  const headers = { "x-gateway-provider": answer.provider };
  if (answer.kind === "json") {
    log.response = loggedJson(answer.body, maxLoggedBytes);
    return { status: answer.status, headers: { ...headers, "content-type": answer.contentType }, body: answer.body };
  }
  log.stream = true;
  const chunks = answer.events.flatMap(eventData).filter((data) => data !== "[DONE]");
  const totalBytes = answer.events.reduce((sum, event) => sum + Buffer.byteLength(event, "utf8"), 0);
  log.response = { kind: "stream", chunks, totalBytes, truncated: false, maxBytes: maxLoggedBytes };
  let next = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const event = answer.events[next++];
        if (event === undefined) return controller.close();
        controller.enqueue(encoder.encode(event));
      },
    },
    { highWaterMark: 0 },
  );
  return { status: answer.status, headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }, body };
}

function loggedJson(body: string, maxLoggedBytes: number): NonNullable<RequestLog["response"]> {
  const totalBytes = Buffer.byteLength(body, "utf8");
  if (totalBytes <= maxLoggedBytes) return { kind: "json-text", text: body, totalBytes, truncated: false, tail: null };
  const capture = new BodyCapture(maxLoggedBytes);
  capture.add(encoder.encode(body));
  const captured = capture.result();
  return { kind: "json-text", text: captured.head, totalBytes, truncated: true, tail: captured.tail };
}

/** The data of one formatted event (`data:` lines joined by newlines); none for a comment. */
export function eventData(event: string): string[] {
  const lines = event.split("\n").filter((line) => line.startsWith("data:"));
  if (lines.length === 0) return [];
  return [lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n")];
}

/** The event's name (`event:` line), or null. */
export function eventName(event: string): string | null {
  const line = event.split("\n").find((candidate) => candidate.startsWith("event:"));
  return line === undefined ? null : line.slice(6).trim();
}
