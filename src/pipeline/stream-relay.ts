import { formatSseEvent } from "../streams/sse.ts";
import type { ClientEvent, StreamEvent, StreamProtocol, StreamTranslator } from "../streams/stream-protocol.ts";
import type { UpstreamCall } from "../net/upstream-call.ts";
import { eventTooLarge, tooLargeToBuffer } from "../lib/answer-limits.ts";
import { GatewayError } from "../errors.ts";
import type { LoggedResponse } from "../logging/log-entry.ts";
import type { AnswerEnding } from "../logging/outcome.ts";

export interface StreamRelayOptions {
  /** How the upstream frames, ends and fails its stream. */
  protocol: StreamProtocol;
  /** True when the stream also ends cleanly where the bytes end (the protocol's or the operation's rule). */
  endsAtEof: boolean;
  /**
   * The operation's own end events (`response.completed`): they end the stream as the protocol's
   * end event does, but are logged and reach the client (after `beforeEnd`), translated if need be.
   */
  isOperationEnd?: (event: StreamEvent) => boolean;
  /** Translates the upstream's events into the client's format; null passes them as they are. */
  translator: StreamTranslator | null;
  /**
   * Runs on the logged events' data once the stream ended cleanly, before the client gets its
   * closing events: an error ends the stream with an error event instead (output guardrails).
   */
  beforeEnd?: (chunks: readonly string[]) => Promise<GatewayError | null>;
  /** The most the log keeps of the stream's data (`GATEWAY_MAX_LOGGED_BODY_BYTES`). */
  maxLoggedBytes: number;
  /**
   * With `beforeEnd`, every event must be kept for it: past this many bytes the stream ends
   * with an error event instead (`GATEWAY_MAX_RESPONSE_BUFFER_BYTES`). Always, an event is held
   * whole until it ends: one that grows past this many bytes ends the stream the same way.
   */
  maxBufferedBytes: number;
  /**
   * A client that takes none of the relayed bytes for this long is cut off: the upstream call
   * aborted, the log 499 `client_closed` (`GATEWAY_STREAM_STALL_TIMEOUT_MS`). Unset, never.
   */
  stallTimeoutMs?: number;
  /** Called once as the stream ends, however it ends, before its last bytes are enqueued. */
  onEnd?: () => void;
}

const encoder = new TextEncoder();
const USAGE_OBJECT = /"usage(Metadata)?"\s*:\s*\{/;

/**
 * Relays an upstream stream to the client as server-sent events, event by event as it arrives
 * (pull-based, so a slow client slows the upstream read instead of buffering). The provider's
 * protocol decodes and ends the stream; the translator turns each event into the client's.
 * The log keeps the events' data up to its limit (then only those carrying usage, and the log is
 * flagged as cut). A failed or truncated stream ends with an explicit `event: error`. Client
 * cancel aborts the upstream.
 */
export function relayStream(call: UpstreamCall, options: StreamRelayOptions): { body: ReadableStream<Uint8Array>; ended: Promise<AnswerEnding> } {
  const { protocol, translator } = options;
  const body = call.response.body;
  const reader = body ? body.getReader() : null;
  const decoder = protocol.createDecoder();
  const chunks: string[] = [];
  let endEvent: StreamEvent | null = null;
  let operationEnd = false;
  let upstreamError: { code: string | null; message: string } | null = null;
  let firstTokenAt: number | null = null;
  let over = false;
  let resolveEnded!: (ending: AnswerEnding) => void;
  const ended = new Promise<AnswerEnding>((resolve) => (resolveEnded = resolve));
  const keep = options.beforeEnd ? options.maxBufferedBytes : options.maxLoggedBytes;
  let keptBytes = 0;
  let overBuffer = false;
  const logged: LoggedResponse & { kind: "stream" } = { kind: "stream", chunks, totalBytes: 0, truncated: false, maxBytes: options.maxLoggedBytes };
  let usageSlot = -1;
  /**
   * Keeps an event's data while within the limit (counted in UTF-16 units, what the strings
   * hold); past it only the latest event with a usage object, which the cost needs. Some
   * providers put usage in every event, so it takes one slot, not one per event.
   */
  const keepChunk = (data: string): void => {
    keptBytes += data.length;
    if (keptBytes <= keep) return void chunks.push(data);
    if (options.beforeEnd) overBuffer = true;
    logged.truncated = true;
    if (!USAGE_OBJECT.test(data)) return;
    if (usageSlot === -1) usageSlot = chunks.push(data) - 1;
    else chunks[usageSlot] = data;
  };

  /** The status was sent; a client that left is logged as 499 all the same (its stream was cut short). */
  const finishLog = (error: { code: string | null; message: string } | null, status = 200): void => {
    if (over) return;
    over = true;
    options.onEnd?.();
    call.done();
    resolveEnded({ status, error: error ?? upstreamError, response: logged, firstTokenAt });
  };

  const write = (events: readonly ClientEvent[]): string => {
    let out = "";
    for (const event of events) {
      if (event.to !== "client") keepChunk(event.data);
      if (event.to !== "log") out += formatSseEvent(event);
    }
    return out;
  };

  /** The client's events for a batch of upstream ones, up to the end event. */
  const render = (events: readonly StreamEvent[]): string => {
    let out = "";
    for (const event of events) {
      if (protocol.isEnd(event) || options.isOperationEnd?.(event)) {
        endEvent = event;
        operationEnd = !protocol.isEnd(event);
        break;
      }
      firstTokenAt ??= performance.now();
      if (protocol.isError(event)) {
        // An error event may echo the credentials the upstream was sent, as an error answer may.
        const scrubbed: StreamEvent = { event: event.event, data: call.scrub(event.data) };
        upstreamError ??= { code: "upstream_stream_error", message: scrubbed.data.slice(0, 1000) };
        out += translator ? write(translator.event(scrubbed).map((e) => ({ ...e, to: "client" as const }))) : formatSseEvent(withType(scrubbed));
        continue;
      }
      out += translator ? write(translator.event(event)) : write([withType(event)]);
    }
    return out;
  };
  /**
   * The upstream's end event for a stream passed as it is (logged too when it is the operation's
   * own); the translator's closing events otherwise, after its reading of an operation's end event.
   */
  const closing = (): ClientEvent[] => {
    const ownEnd = operationEnd && endEvent ? endEvent : null;
    if (translator) return [...(ownEnd ? translator.event(ownEnd) : []), ...(translator.end?.() ?? [])];
    if (ownEnd) return [withType(ownEnd)];
    return endEvent ? [{ ...withType(endEvent), to: "client" }] : [];
  };

  const failWith = (controller: ReadableStreamDefaultController<Uint8Array>, error: GatewayError): void => {
    const events = translator?.error?.(error) ?? [{ event: "error", data: JSON.stringify(error.toBody()) }];
    finishLog({ code: error.code, message: error.message });
    controller.enqueue(encoder.encode(events.map(formatSseEvent).join("")));
    controller.close();
  };

  const finishClean = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    call.done();
    void reader?.cancel().catch(() => undefined);
    const events = closing();
    const denied = options.beforeEnd ? await options.beforeEnd(chunks.concat(events.filter((e) => e.to !== "client").map((e) => e.data))) : null;
    if (denied) return failWith(controller, denied);
    const out = write(events);
    finishLog(null);
    if (out) controller.enqueue(encoder.encode(out));
    controller.close();
  };

  let started: ReadableStreamDefaultController<Uint8Array> | null = null;
  const stall = options.stallTimeoutMs
    ? watchStall(options.stallTimeoutMs, () => {
        call.abort();
        void reader?.cancel().catch(() => undefined);
        const ms = options.stallTimeoutMs;
        finishLog({ code: "client_closed", message: `The client took none of the stream for ${ms} ms (GATEWAY_STREAM_STALL_TIMEOUT_MS).` }, 499);
        // An errored body makes the server drop the connection: the bytes queued for it go too.
        // The code is a gone client's: @hono/node-server then notes it in one line, not a stack.
        started?.error(Object.assign(new Error("The client stopped reading the stream."), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
      })
    : null;

  const relayed = new ReadableStream<Uint8Array>({
    start(controller) {
      started = controller;
    },
    async pull(controller) {
      stall?.taken();
      try {
        await pullFromUpstream(controller);
      } finally {
        if (over) stall?.stop();
        else stall?.handedOver();
      }
    },
    cancel() {
      stall?.stop();
      call.abort();
      void reader?.cancel().catch(() => undefined);
      finishLog({ code: "client_closed", message: "The client closed the stream." }, 499);
    },
  });
  return { body: relayed, ended };

  async function pullFromUpstream(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (!reader) return failWith(controller, endedEarly());
    // Bytes read since the decoder last completed an event: what it holds of an unfinished one.
    let unfinishedBytes = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          const tail = render(decoder.flush());
          if (tail) controller.enqueue(encoder.encode(tail));
          if (endEvent || (options.endsAtEof && !upstreamError)) return await finishClean(controller);
          if (!upstreamError) return failWith(controller, endedEarly());
          finishLog(null);
          return controller.close();
        }
        logged.totalBytes += value.byteLength;
        const events = decoder.push(value);
        unfinishedBytes = events.length > 0 ? 0 : unfinishedBytes + value.byteLength;
        if (unfinishedBytes > options.maxBufferedBytes) {
          // An upstream may send an event that never ends (a line without its line break).
          call.abort();
          void reader.cancel().catch(() => undefined);
          return failWith(controller, eventTooLarge(options.maxBufferedBytes));
        }
        const out = render(events);
        if (overBuffer) {
          call.abort();
          void reader.cancel().catch(() => undefined);
          return failWith(controller, tooLargeToBuffer(options.maxBufferedBytes));
        }
        if (out) controller.enqueue(encoder.encode(out));
        if (endEvent) return await finishClean(controller);
        if (out) return;
      }
    } catch (error) {
      failWith(controller, call.classify(error));
    }
  }
}

interface StallWatch {
  /** The client took what was handed over (the runtime pulls again): not stalled. */
  taken(): void;
  /** Bytes were handed over: the client has `ms` to take them. */
  handedOver(): void;
  stop(): void;
}

/**
 * Calls `onStall` when bytes handed over are not taken within `ms`. While the relay waits on
 * the upstream, the client is not at fault and the clock is off. One timer per stream, re-armed
 * only when it fires (not per event), so a fast stream costs two time reads per event.
 */
function watchStall(ms: number, onStall: () => void): StallWatch {
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const check = (): void => {
    timer = null;
    if (since === 0) return;
    const waited = performance.now() - since;
    if (waited >= ms) return onStall();
    arm(ms - waited);
  };
  const arm = (delay: number): void => {
    timer = setTimeout(check, delay);
    (timer as { unref?: () => void }).unref?.();
  };
  return {
    taken: () => void (since = 0),
    handedOver() {
      since = performance.now();
      if (timer === null) arm(ms);
    },
    stop() {
      since = 0;
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

/** A stream whose bytes ended before its end event: cut short, or not a stream of this protocol at all. */
function endedEarly(): GatewayError {
  return new GatewayError("upstream_error", "The upstream's stream ended before its end event.");
}

function withType(event: StreamEvent): ClientEvent {
  return event.event === null ? { data: event.data } : { event: event.event, data: event.data };
}
