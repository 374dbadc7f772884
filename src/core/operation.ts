/**
 * An operation the gateway proxies (chat completions, embeddings, the pass-through…), told to
 * the core by a small descriptor in its route file. `proxyOperation` runs them all.
 */
import type { AnswerFormat } from "../logging/answer-formats.ts";
import type { StreamEvent, StreamTranslator } from "./stream-protocol.ts";
import type { JsonObject } from "../providers/provider.ts";

export interface OperationDescriptor {
  /** The operationId: the log's route, and the key of a provider's transforms. */
  id: string;
  method: string;
  /** Appended to the provider's base URL, unless the provider's transform names its own path. */
  upstreamPath: string;
  /**
   * `json`: parsed once, checked, sent as the client's exact bytes unless something changed it;
   * `as-sent`: passed upstream as it arrives (multipart, binary), with its content type;
   * `none`: no body.
   */
  body: "json" | "as-sent" | "none";
  /**
   * `json`: a JSON object (or server-sent events when the request streams), checked before the
   * client gets it; `as-sent`: relayed as it arrives whatever its type (server-sent events still
   * go event by event).
   */
  answer: "json" | "as-sent";
  /**
   * True when the operation's streams may end where the bytes end, with no end event (the
   * pass-through, whose upstream paths have their own conventions); otherwise a stream that
   * stops short of its provider's end event is cut and ends with an error event.
   */
  streamEndsAtEof?: boolean;
  /**
   * The operation's own end events, for streams whose framing has no end marker (the Responses
   * API's `response.completed`): nothing after one is read, it is logged like any event, and it
   * reaches the client only once output guardrails have judged the stream.
   */
  isStreamEnd?(event: StreamEvent): boolean;
  /**
   * True when only providers with transforms for this operation serve it (Anthropic's token
   * counting): an OpenAI-format provider, which would otherwise get the request as it is,
   * answers 400 naming itself.
   */
  nativeOnly?: boolean;
  /**
   * Set when the client speaks another format than the operation the upstream serves (Anthropic
   * Messages in, chat completions out). The route hands the core the translated request; the
   * providers' transforms of `via` run as for that operation, then these translate every answer
   * (after the provider's own transforms) before the client, the log and the cache see it.
   */
  translated?: AnswerTranslation;
  /** How the log reads the answer's model and usage (and assembles a stream). */
  format: AnswerFormat;
  /**
   * The text guardrails judge. An operation without it refuses configs that attach guardrails
   * (400) rather than serve them unchecked.
   */
  guardrails?: {
    input(body: JsonObject): string;
    /** The answer's text; without it, output guardrails are refused. */
    output?(answer: JsonObject): string;
    /** A stream's text from the logged events' data; without it, streams refuse output guardrails. */
    streamOutput?(chunks: readonly string[]): string;
  };
}

/** The answer half of a client format the gateway translates (`OperationDescriptor.translated`). Pure. */
export interface AnswerTranslation {
  /** The operation whose provider transforms serve the translated request. */
  via: string;
  /** A successful JSON answer of `via`, in the client's format. */
  response(answer: JsonObject): JsonObject;
  /** A new translator of `via`'s stream events (as the provider's translator gives them) into the client's. */
  stream(clientBody: JsonObject): StreamTranslator;
}

/** The operation whose provider transforms serve this one. */
export function transformsKey(operation: OperationDescriptor): string {
  return operation.translated?.via ?? operation.id;
}
