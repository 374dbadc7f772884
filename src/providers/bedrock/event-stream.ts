/**
 * AWS's binary event stream (`application/vnd.amazon.eventstream`) as a `StreamProtocol`:
 * frames are cut by their length prelude here and decoded (CRCs checked, headers parsed) by
 * Smithy's codec, the one the AWS SDKs use. Each frame becomes one event: `:event-type` and the
 * payload text for events, `:exception-type` for modelled exceptions (their names end in
 * `Exception`), and `error` with `{code, message}` for protocol errors and frames that do not
 * decode.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 * https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html (the framing)
 */
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { StreamDecoder, StreamEvent, StreamProtocol } from "../../streams/stream-protocol.ts";

/** Total length (4 bytes), headers length (4), prelude CRC (4). */
type Message = ReturnType<EventStreamCodec["decode"]>;
type MessageHeaders = Message["headers"];

const PRELUDE_BYTES = 12;
/** The prelude and the message CRC: no frame is shorter. */
const MIN_FRAME_BYTES = 16;
/** Bedrock's frames are small; one this large is corrupt, not a payload to wait for. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The name of the error event the decoder reports (protocol errors, corrupt frames). */
export const STREAM_ERROR_EVENT = "error";

export const awsEventStreamProtocol: StreamProtocol = {
  contentType: "application/vnd.amazon.eventstream",
  createDecoder: createAwsEventStreamDecoder,
  isEnd: () => false,
  // ConverseStream's last event is `metadata` (usage and metrics), after `messageStop`.
  isLast: (event) => event.event === "metadata",
  endsAtEof: false,
  isError: (event) => event.event === STREAM_ERROR_EVENT || (event.event?.endsWith("Exception") ?? false),
};

/**
 * A decoder over the bytes of an event stream, whatever their splits. Never throws: a frame
 * that fails its checks becomes one `error` event and the rest of the stream is ignored (its
 * framing can no longer be trusted).
 */
export function createAwsEventStreamDecoder(): StreamDecoder {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let buffer: Uint8Array = new Uint8Array(0);
  let failed = false;

  const fail = (message: string): StreamEvent[] => {
    failed = true;
    buffer = new Uint8Array(0);
    return [errorEvent("InvalidFrame", message)];
  };

  return {
    push(bytes) {
      if (failed) return [];
      buffer = concat(buffer, bytes);
      const events: StreamEvent[] = [];
      while (buffer.byteLength >= PRELUDE_BYTES) {
        const length = new DataView(buffer.buffer, buffer.byteOffset, 4).getUint32(0, false);
        if (length < MIN_FRAME_BYTES || length > MAX_FRAME_BYTES) return events.concat(fail(`A frame declares ${length} bytes.`));
        if (buffer.byteLength < length) break;
        let message: Message;
        try {
          message = codec.decode(buffer.subarray(0, length));
        } catch (error) {
          return events.concat(fail(error instanceof Error ? error.message : "A frame did not decode."));
        }
        buffer = buffer.slice(length);
        events.push(eventOf(message));
      }
      return events;
    },
    flush() {
      if (failed || buffer.byteLength === 0) return [];
      return fail(`The stream ended inside a frame (${buffer.byteLength} bytes left).`);
    },
  };
}

function eventOf(message: Message): StreamEvent {
  const messageType = header(message.headers, ":message-type");
  if (messageType === "exception") {
    return { event: header(message.headers, ":exception-type") ?? "unknownException", data: toUtf8(message.body) };
  }
  if (messageType === "error") {
    return errorEvent(header(message.headers, ":error-code") ?? "UnknownError", header(message.headers, ":error-message") ?? "The stream reported an error.");
  }
  return { event: header(message.headers, ":event-type") ?? null, data: toUtf8(message.body) };
}

function errorEvent(code: string, message: string): StreamEvent {
  return { event: STREAM_ERROR_EVENT, data: JSON.stringify({ code, message }) };
}

function header(headers: MessageHeaders, name: string): string | undefined {
  const value = headers[name];
  return value?.type === "string" ? value.value : undefined;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}
