/**
 * How an upstream frames its streams, and how they are translated for the client. A provider
 * names its protocol (server-sent events, or AWS's binary event stream for Bedrock); an
 * operation's transforms give a translator. The relay (`stream-relay.ts`) knows neither.
 */
import type { GatewayError } from "../errors.ts";
import { createSseParser } from "./sse.ts";

/** One upstream event: its type, when the framing has one, and its data as text. */
export interface StreamEvent {
  event: string | null;
  data: string;
}

/** Turns the bytes of a stream into events, whatever their splits. Never throws. */
export interface StreamDecoder {
  push(bytes: Uint8Array): StreamEvent[];
  /** The events left at the end of the stream. */
  flush(): StreamEvent[];
}

export interface StreamProtocol {
  /** The answer's content type that marks a stream (compared by prefix). */
  contentType: string;
  createDecoder(): StreamDecoder;
  /** The event that ends a stream cleanly; nothing after it is read. */
  isEnd(event: StreamEvent): boolean;
  /**
   * The last event of a stream that carries data of its own (Bedrock's `metadata`, with the
   * usage): it ends the stream like `isEnd`, but is translated and logged like the operation's
   * own end events. Absent: none.
   */
  isLast?(event: StreamEvent): boolean;
  /** True when the stream also ends cleanly where the bytes end, without an end event. */
  endsAtEof: boolean;
  /** An event that reports an upstream failure inside the stream. */
  isError(event: StreamEvent): boolean;
}

/** One event for the client. `to` says who gets it: the client, the log, or both (the default). */
export interface ClientEvent {
  event?: string;
  data: string;
  to?: "client" | "log" | "both";
}

/**
 * Translates one stream's events into the client's format. Without a translator, events pass
 * as they are and the upstream's end event is forwarded to the client.
 */
export interface StreamTranslator {
  event(event: StreamEvent): ClientEvent[];
  /** The client's closing events (a final usage chunk, the end marker), written once the stream ended cleanly. */
  end?(): ClientEvent[];
  /**
   * The client's events for a failure the gateway reports mid-stream (a cut stream, a timeout);
   * without it, `event: error` with the gateway's envelope.
   */
  error?(error: GatewayError): ClientEvent[];
}

/**
 * Two translators in a row: every event `first` gives (whoever it was meant for) goes through
 * `second`, whose events are the client's. `first` null: the upstream's events go to `second`.
 */
export function chainTranslators(first: StreamTranslator | null, second: StreamTranslator): StreamTranslator {
  const through = (events: readonly ClientEvent[]): ClientEvent[] => events.flatMap((event) => second.event({ event: event.event ?? null, data: event.data }));
  const failing = second.error ? second : first?.error ? first : null;
  return {
    event: (event) => (first ? through(first.event(event)) : second.event(event)),
    end: () => [...through(first?.end?.() ?? []), ...(second.end?.() ?? [])],
    ...(failing ? { error: (error: GatewayError) => failing.error!(error) } : {}),
  };
}

/** Server-sent events that end with `data: [DONE]` (the OpenAI format), or where the bytes end. */
export const openaiSseProtocol: StreamProtocol = {
  contentType: "text/event-stream",
  createDecoder: createSseDecoder,
  isEnd: (event) => event.data === "[DONE]",
  endsAtEof: false,
  isError: (event) => event.event === "error" || event.data.startsWith('{"error"'),
};

/** An SSE decoder over bytes: UTF-8 decoded across chunk splits, then the WHATWG event-stream rules. */
export function createSseDecoder(): StreamDecoder {
  const decoder = new TextDecoder();
  const parser = createSseParser();
  const events = (parsed: ReturnType<typeof parser.push>): StreamEvent[] => parsed.map(({ event, data }) => ({ event, data }));
  return {
    push: (bytes) => events(parser.push(decoder.decode(bytes, { stream: true }))),
    flush: () => events(parser.push(decoder.decode()).concat(parser.flush())),
  };
}
