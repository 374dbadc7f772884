import { BodyCapture } from "../lib/body-capture.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import type { LoggedResponse } from "../logging/log-entry.ts";
import type { AnswerEnding } from "../logging/outcome.ts";
import type { CachedAnswer } from "./cached-answer.ts";

const encoder = new TextEncoder();

/** A cached answer replayed: the response, who served it first, and what the log keeps of it. */
export interface Replayed {
  response: ProxyResponse;
  provider: string;
  model: string | null;
  stream: boolean;
  ending: AnswerEnding;
}

/**
 * A cached answer as the client's response, with its ending as the upstream's answer would have
 * ended (provider, model, body, usage), so the record builder prices the usage as the cost
 * saved. No upstream header is replayed: rate limits of a past call would mislead.
 */
export function replayAnswer(answer: CachedAnswer, maxLoggedBytes: number): Replayed {
  const firstTokenAt = performance.now();
  const headers = { "x-gateway-provider": answer.provider };
  const served = { provider: answer.provider, model: answer.model };
  if (answer.kind === "json") {
    const response = { status: answer.status, headers: { ...headers, "content-type": answer.contentType }, body: answer.body };
    return { ...served, stream: false, response, ending: { status: answer.status, error: null, response: loggedJson(answer.body, maxLoggedBytes), firstTokenAt } };
  }
  const chunks = answer.events.flatMap(eventData).filter((data) => data !== "[DONE]");
  const totalBytes = answer.events.reduce((sum, event) => sum + Buffer.byteLength(event, "utf8"), 0);
  const logged: LoggedResponse = { kind: "stream", chunks, totalBytes, truncated: false, maxBytes: maxLoggedBytes };
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
  const response = { status: answer.status, headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }, body };
  return { ...served, stream: true, response, ending: { status: answer.status, error: null, response: logged, firstTokenAt } };
}

function loggedJson(body: string, maxLoggedBytes: number): LoggedResponse {
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
