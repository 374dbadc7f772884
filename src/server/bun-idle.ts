/// <reference types="bun" />
import type { Server } from "bun";

/**
 * Bun's idle timeout between requests, kept alive across requests that turn it off.
 *
 * Each request turns the connection's idle timeout off (`server.timeout(request, 0)`): an
 * upstream may think for minutes before its first byte, and a stream may fall silent, and the
 * gateway's own timeouts govern those. But Bun keeps a request's setting on its connection
 * after the answer, so a keep-alive connection would then never be closed for idling, and a
 * setting made once the answer is out no longer takes (Bun 1.4). So the idle timeout is put
 * back while the answer is still going: before an answer with a finished body is returned, and
 * for an event stream (which may be silent for long) as its last bytes are handed over.
 */
export function restoreIdleTimeout<T>(server: Server<T>, request: Request, idleSeconds: number, response: Response): Response {
  // A WebSocket upgrade (realtime) keeps its own idle rules: the session may be quiet for long.
  if (request.headers.has("upgrade")) return response;
  const restore = (): void => {
    try {
      server.timeout(request, idleSeconds);
    } catch {
      // The connection is already gone: nothing to time out.
    }
  };
  if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !response.body) {
    restore();
    return response;
  }
  return new Response(restoreAtEnd(response.body, restore), response);
}

/**
 * The same bytes, `restore` called once the source is done and before its end is handed over.
 * A high-water mark of 0 pulls nothing ahead: the relay keeps its own backpressure.
 */
function restoreAtEnd(body: ReadableStream<Uint8Array>, restore: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        restore();
        controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
