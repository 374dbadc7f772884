import { createSseParser, formatSseEvent, type SseEvent } from "./sse.ts";
import type { UpstreamCall } from "./upstream-call.ts";
import { tooLargeToBuffer } from "./answer-limits.ts";
import type { GatewayError } from "../errors.ts";
import type { RequestLog } from "../logging/request-log.ts";

export interface StreamRelayOptions {
  /** The gateway added `stream_options.include_usage`: the usage-only chunk is not the client's. */
  dropUsageChunk: boolean;
  /** Called once when the stream is over, whatever the reason. */
  onEnd?: () => void;
  /**
   * Runs on the chunks received when the upstream sends `[DONE]`, before the client gets it:
   * an error ends the stream with an error event instead (output guardrails).
   */
  beforeDone?: (chunks: readonly string[]) => Promise<GatewayError | null>;
  /** The most the log keeps of the stream's data (`GATEWAY_MAX_LOGGED_BODY_BYTES`). */
  maxLoggedBytes: number;
  /**
   * With `beforeDone`, every chunk must be kept for it: past this many bytes the stream ends
   * with an error event instead (`GATEWAY_MAX_RESPONSE_BUFFER_BYTES`).
   */
  maxBufferedBytes: number;
}

const encoder = new TextEncoder();
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/** The final usage chunk of an OpenAI stream: no choices, a usage object. */
function isUsageOnlyChunk(data: string): boolean {
  if (!data.includes('"usage"')) return false;
  try {
    const chunk = JSON.parse(data) as { choices?: unknown; usage?: unknown };
    return Array.isArray(chunk.choices) && chunk.choices.length === 0 && !!chunk.usage && typeof chunk.usage === "object";
  } catch {
    return false;
  }
}

function isErrorEvent(event: SseEvent): boolean {
  return event.event === "error" || event.data.startsWith('{"error"');
}

/**
 * Relays an upstream SSE stream to the client event by event as it arrives (pull-based, so
 * a slow client slows the upstream read instead of buffering). Keeps the data of the chunks
 * for the log up to its limit (then only usage chunks, and the log is flagged as cut), drops
 * the usage chunk the client did not ask for, and ends a failed or truncated stream with an
 * explicit `event: error`. Client cancel aborts the upstream.
 */
export function relayChatStream(call: UpstreamCall, log: RequestLog, options: StreamRelayOptions): ReadableStream<Uint8Array> {
  const body = call.response.body;
  const reader = body ? body.getReader() : null;
  const decoder = new TextDecoder();
  const parser = createSseParser();
  const chunks: string[] = [];
  let sawDone = false;
  let upstreamError: { code: string | null; message: string } | null = null;
  log.deferred = true;
  const keep = options.beforeDone ? options.maxBufferedBytes : options.maxLoggedBytes;
  let keptBytes = 0;
  let overBuffer = false;
  const logged = { kind: "stream" as const, chunks, totalBytes: 0, truncated: false, maxBytes: options.maxLoggedBytes };
  log.response = logged;
  let usageSlot = -1;
  /**
   * Keeps a chunk's data while within the limit (counted in UTF-16 units, what the strings
   * hold); past it only the latest chunk with a usage object, which the cost needs. Some
   * providers put usage in every chunk, so it takes one slot, not one per chunk.
   */
  const keepChunk = (data: string): void => {
    keptBytes += data.length;
    if (keptBytes <= keep) return void chunks.push(data);
    if (options.beforeDone) overBuffer = true;
    logged.truncated = true;
    if (!USAGE_OBJECT.test(data)) return;
    if (usageSlot === -1) usageSlot = chunks.push(data) - 1;
    else chunks[usageSlot] = data;
  };

  const end = (error: { code: string | null; message: string } | null): void => {
    if (log.isFinished) return;
    call.done();
    log.finish(200, error ?? upstreamError);
    options.onEnd?.();
  };

  const render = (events: SseEvent[]): string => {
    let out = "";
    for (const event of events) {
      if (event.data === "[DONE]") {
        // Held back until `beforeDone` has passed; anything after it is not the client's.
        sawDone = true;
        break;
      }
      log.markFirstToken();
      if (isErrorEvent(event)) upstreamError ??= { code: "upstream_stream_error", message: event.data.slice(0, 1000) };
      else keepChunk(event.data);
      if (options.dropUsageChunk && isUsageOnlyChunk(event.data)) continue;
      out += formatSseEvent({ event: event.event ?? undefined, data: event.data });
    }
    return out;
  };

  const failWith = (controller: ReadableStreamDefaultController<Uint8Array>, error: GatewayError): void => {
    controller.enqueue(encoder.encode(formatSseEvent({ event: "error", data: JSON.stringify(error.toBody()) })));
    controller.close();
    end({ code: error.code, message: error.message });
  };

  const finishDone = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    call.done();
    void reader?.cancel().catch(() => undefined);
    const denied = options.beforeDone ? await options.beforeDone(chunks) : null;
    if (denied) return failWith(controller, denied);
    controller.enqueue(encoder.encode("data: [DONE]\n\n"));
    controller.close();
    end(null);
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!reader) return failWith(controller, call.classify(new Error("empty body")));
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            const tail = render(parser.flush());
            if (tail) controller.enqueue(encoder.encode(tail));
            if (sawDone) return await finishDone(controller);
            if (!upstreamError) {
              return failWith(controller, call.classify(new Error("stream ended before [DONE]")));
            }
            controller.close();
            return end(null);
          }
          logged.totalBytes += value.byteLength;
          const out = render(parser.push(decoder.decode(value, { stream: true })));
          if (overBuffer) {
            call.abort();
            void reader.cancel().catch(() => undefined);
            return failWith(controller, tooLargeToBuffer(options.maxBufferedBytes));
          }
          if (out) controller.enqueue(encoder.encode(out));
          if (sawDone) return await finishDone(controller);
          if (out) return;
        }
      } catch (error) {
        failWith(controller, call.classify(error));
      }
    },
    cancel() {
      call.abort();
      void reader?.cancel().catch(() => undefined);
      end({ code: "client_closed", message: "The client closed the stream." });
    },
  });
}
