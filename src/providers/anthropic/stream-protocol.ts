/**
 * How the Messages API frames a stream: typed server-sent events (`event: <type>` and a JSON
 * `data` with the same `type`), ended by `message_stop`; failures come as an `error` event.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 */
import { createSseDecoder, type StreamProtocol } from "../../streams/stream-protocol.ts";

export const anthropicSseProtocol: StreamProtocol = {
  contentType: "text/event-stream",
  createDecoder: createSseDecoder,
  isEnd: (event) => event.event === "message_stop",
  endsAtEof: false,
  isError: (event) => event.event === "error",
};
