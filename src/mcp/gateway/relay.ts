/**
 * A server's answer passed to the client: as a stream of events when the server streams it and
 * the client takes streams (progress notifications go on as they come), else as the one JSON
 * response. The response to the client's request is shaped once (`shape`: the access rule's
 * filter, a guardrail, redaction) and reported once (`ended`), whatever the way.
 */
import { formatSseEvent } from "../../streams/sse.ts";
import { INTERNAL_ERROR, isResponse, rpcError, type JsonRpcId, type JsonRpcMessage, type JsonRpcResponse } from "./json-rpc.ts";
import type { LegAnswer } from "./upstream-leg.ts";

export interface RelayOptions {
  id: JsonRpcId;
  acceptsStream: boolean;
  /** Every message on its way to the client (secrets redacted). */
  pass(message: JsonRpcMessage): JsonRpcMessage;
  /** The response to the client's request, shaped before it goes. */
  shape(response: JsonRpcResponse): Promise<JsonRpcResponse>;
  /** Called once with the response the client got. */
  ended(response: JsonRpcResponse): void;
  /** Extra headers of the answer (the gateway's session id). */
  headers?: Record<string, string>;
}

export async function relay(answer: LegAnswer, options: RelayOptions): Promise<Response> {
  const headers = { ...options.headers };
  if (answer.streamed && options.acceptsStream) return streamed(answer, options, headers);
  let response: JsonRpcResponse | null = null;
  try {
    for await (const message of answer.messages) {
      if (isResponse(message) && message.id === options.id) {
        response = message;
        break;
      }
    }
  } catch (error) {
    response = rpcError(options.id, INTERNAL_ERROR, error instanceof Error ? error.message : String(error));
  } finally {
    answer.close();
  }
  const final = await options.shape(options.pass(response ?? rpcError(options.id, INTERNAL_ERROR, "The MCP server ended its answer without a response.")) as JsonRpcResponse);
  options.ended(final);
  return Response.json(final, { status: 200, headers });
}

function streamed(answer: LegAnswer, options: RelayOptions, headers: Record<string, string>): Response {
  const encoder = new TextEncoder();
  const iterator = answer.messages[Symbol.asyncIterator]();
  let done = false;
  const finish = async (controller: ReadableStreamDefaultController<Uint8Array>, response: JsonRpcResponse): Promise<void> => {
    done = true;
    const final = await options.shape(options.pass(response) as JsonRpcResponse);
    options.ended(final);
    controller.enqueue(encoder.encode(formatSseEvent({ event: "message", data: JSON.stringify(final) })));
    controller.close();
    answer.close();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return;
      try {
        const next = await iterator.next();
        if (next.done) return finish(controller, rpcError(options.id, INTERNAL_ERROR, "The MCP server ended its stream without a response."));
        const message = next.value;
        if (isResponse(message) && message.id === options.id) return finish(controller, message);
        controller.enqueue(encoder.encode(formatSseEvent({ event: "message", data: JSON.stringify(options.pass(message)) })));
      } catch (error) {
        await finish(controller, rpcError(options.id, INTERNAL_ERROR, error instanceof Error ? error.message : String(error)));
      }
    },
    cancel() {
      if (done) return;
      done = true;
      answer.abort();
      options.ended(rpcError(options.id, INTERNAL_ERROR, "The client went away."));
    },
  });
  return new Response(body, { status: 200, headers: { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" } });
}
