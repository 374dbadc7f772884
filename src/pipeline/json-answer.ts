import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { LoggedResponse } from "../logging/log-entry.ts";
import type { AnswerEnding, RefusedAnswer } from "../logging/outcome.ts";
import { BodyCapture } from "../lib/body-capture.ts";
import { parseObject } from "../operation/answer-reader.ts";
import { tooLargeToBuffer } from "../lib/answer-limits.ts";
import type { UpstreamCall } from "../net/upstream-call.ts";

/**
 * A successful non-streamed answer of this size or less is read whole and checked to be a
 * JSON object before the client gets its status; a larger one is relayed as it arrives.
 */
export const CHECKED_ANSWER_BYTES = 1024 * 1024;

export interface JsonAnswerOptions {
  /** Read the whole answer (output guardrails or `hook_results` need it), up to `maxBufferedBytes`. */
  whole: boolean;
  maxBufferedBytes: number;
  maxLoggedBytes: number;
  providerName: string;
  /** An answer with no bytes at all is `empty` rather than a 502 (nothing translates it). */
  emptyAllowed?: boolean;
  /** The upstream's headers the client gets with any answer (`Retry-After`, rate limits). */
  passedHeaders: Readonly<Record<string, string>>;
}

/**
 * The whole answer, parsed, with what the log keeps of it and when it arrived; or a live body
 * relaying one too large to hold, and its ending once relayed; or no bytes at all (a delete's
 * empty 200, a 204), when `emptyAllowed`.
 */
export type JsonAnswer =
  | { kind: "whole"; text: string; value: Record<string, unknown>; logged: LoggedResponse; answeredAt: number }
  | { kind: "relayed"; body: ReadableStream<Uint8Array>; ended: Promise<AnswerEnding> }
  | { kind: "empty"; logged: LoggedResponse; answeredAt: number };

/** An answer not passed on: the error the client gets, and what the log keeps of the upstream's. */
export interface AnswerRefusal {
  error: GatewayError;
  refused: RefusedAnswer;
}

/**
 * Reads a successful (2xx) non-streamed upstream answer. One that fits `CHECKED_ANSWER_BYTES`
 * (or, when `whole`, `maxBufferedBytes`) must parse as a JSON object, else 502 (the body is not
 * echoed; the log keeps it). A larger one that need not be read whole is relayed to the client
 * as it arrives, checked only to begin like an object. `whole` past its limit is a 502. The log
 * keeps the first `maxLoggedBytes` and the last bytes (for `usage`). Never throws.
 */
export async function readJsonAnswer(call: UpstreamCall, options: JsonAnswerOptions): Promise<Result<JsonAnswer, AnswerRefusal>> {
  const capture = new BodyCapture(options.maxLoggedBytes);
  const limit = options.whole ? options.maxBufferedBytes : CHECKED_ANSWER_BYTES;
  // A length the limit allows, declared up front, is all the HTTP client will deliver: such an
  // answer (the usual one) is read in one native call instead of chunk by chunk.
  const whole = declaredLength(call.response) <= limit;
  const reader = whole ? undefined : call.response.body?.getReader();
  const prefix: Uint8Array[] = [];
  let ended = !reader;
  try {
    if (whole) {
      const bytes = new Uint8Array(await call.response.arrayBuffer());
      capture.add(bytes);
      prefix.push(bytes);
    }
    while (reader && capture.totalBytes <= limit) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      capture.add(value);
      prefix.push(value);
    }
  } catch (error) {
    call.done();
    return fail({ error: call.classify(error), refused: { answeredAt: null, response: null } });
  }
  const answeredAt = performance.now();
  const captured = (): LoggedResponse => capturedText(capture);
  const refuse = (error: GatewayError): Result<never, AnswerRefusal> => fail({ error, refused: { answeredAt, response: captured() } });

  if (ended) {
    call.done();
    const text = new TextDecoder().decode(prefix.length === 1 ? prefix[0] : Buffer.concat(prefix));
    // The usual answer fits the log whole: its text serves both, decoded once.
    const logged: LoggedResponse =
      capture.totalBytes <= options.maxLoggedBytes ? { kind: "json-text", text, totalBytes: capture.totalBytes, truncated: false, tail: null } : captured();
    if (capture.totalBytes === 0 && options.emptyAllowed) return ok({ kind: "empty", logged, answeredAt });
    const value = parseObject(text);
    return value ? ok({ kind: "whole", text, value, logged, answeredAt }) : fail({ error: notJson(options), refused: { answeredAt, response: logged } });
  }
  if (options.whole) {
    call.abort();
    void reader?.cancel().catch(() => undefined);
    return refuse(tooLargeToBuffer(options.maxBufferedBytes, options.passedHeaders));
  }
  if (!beginsLikeObject(prefix)) {
    call.abort();
    void reader?.cancel().catch(() => undefined);
    return refuse(notJson(options));
  }
  const relayed = relay(call, reader!, prefix, capture, captured, answeredAt);
  return ok({ kind: "relayed", body: relayed.body, ended: relayed.ended });
}

function capturedText(capture: BodyCapture): LoggedResponse {
  const captured = capture.result();
  return { kind: "json-text", text: captured.head, totalBytes: captured.totalBytes, truncated: captured.truncated, tail: captured.tail };
}

/**
 * Relays an answer of any type to the client as it arrives (its status and headers are the
 * caller's to send). The log keeps a textual answer's first and last bytes, as for JSON, and of
 * any other (audio, say) never a byte: its content type and size, as JSON text. Never throws.
 */
export function relayAsSent(
  call: UpstreamCall,
  options: { maxLoggedBytes: number; textual: boolean; contentType?: string },
): { body: ReadableStream<Uint8Array>; ended: Promise<AnswerEnding> } {
  const answeredAt = performance.now();
  const reader = call.response.body?.getReader();
  const capture = new BodyCapture(options.textual ? options.maxLoggedBytes : 0, options.textual ? undefined : 0);
  const logged = (): LoggedResponse => {
    if (options.textual) return capturedText(capture);
    const captured = capture.result();
    const text = JSON.stringify({ content_type: options.contentType ?? null, size_bytes: captured.totalBytes });
    return { kind: "json-text", text, totalBytes: captured.totalBytes, truncated: false, tail: null };
  };
  if (!reader) {
    call.done();
    const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    return { body, ended: Promise.resolve({ status: call.response.status, error: null, response: logged(), firstTokenAt: answeredAt }) };
  }
  return relay(call, reader, [], capture, logged, answeredAt);
}

/**
 * Relays the rest of an answer whose status is sent; `ended` resolves once, when the body ended,
 * failed or the client left (logged as 499 all the same: what it got was cut short).
 */
function relay(
  call: UpstreamCall,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  prefix: Uint8Array[],
  capture: BodyCapture,
  logged: () => LoggedResponse,
  answeredAt: number,
): { body: ReadableStream<Uint8Array>; ended: Promise<AnswerEnding> } {
  let resolveEnded!: (ending: AnswerEnding) => void;
  const ended = new Promise<AnswerEnding>((resolve) => (resolveEnded = resolve));
  let over = false;
  const end = (error: { code: string | null; message: string } | null, status = call.response.status): void => {
    if (over) return;
    over = true;
    call.done();
    resolveEnded({ status, error, response: logged(), firstTokenAt: answeredAt });
  };
  let pending: Uint8Array[] | null = prefix.length > 0 ? prefix : null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        for (const chunk of pending) controller.enqueue(chunk);
        pending = null;
        return;
      }
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return end(null);
        }
        capture.add(value);
        controller.enqueue(value);
      } catch (error) {
        // The status is sent: all that is left is to cut the body short.
        const failure = call.classify(error);
        controller.error(failure);
        end({ code: failure.code, message: failure.message });
      }
    },
    cancel() {
      call.abort();
      void reader.cancel().catch(() => undefined);
      end({ code: "client_closed", message: "The client closed the request." }, 499);
    },
  });
  return { body, ended };
}

/** The answer's declared `Content-Length`, or Infinity when it declares none (chunked). */
function declaredLength(response: Response): number {
  const header = response.headers.get("content-length");
  return header !== null && /^[0-9]+$/.test(header) ? Number(header) : Number.POSITIVE_INFINITY;
}

function notJson({ providerName, passedHeaders }: JsonAnswerOptions): GatewayError {
  return new GatewayError("upstream_error", `${providerName} answered with a body that is not a JSON object; the gateway does not pass it on.`, {
    headers: passedHeaders,
  });
}

function beginsLikeObject(chunks: readonly Uint8Array[]): boolean {
  for (const chunk of chunks) {
    for (const byte of chunk) {
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
      return byte === 0x7b;
    }
  }
  return false;
}

/**
 * An upstream error answer's text, cut to `maxBytes` (what is beyond is not read; the upstream
 * request is ended). Stops the call's clock. Never throws.
 */
export async function readErrorText(call: UpstreamCall, maxBytes = CHECKED_ANSWER_BYTES): Promise<Result<string, GatewayError>> {
  const reader = call.response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (reader && bytes <= maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch (error) {
    return fail(call.classify(error));
  } finally {
    call.done();
  }
  if (bytes > maxBytes) {
    call.abort();
    void reader?.cancel().catch(() => undefined);
  }
  return ok(new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes)));
}
