/// <reference types="bun" />
import type { Server } from "bun";
import type { AnswerEnd } from "../app-env.ts";

/**
 * Bun's idle timeout between requests, kept alive across requests that turn it off.
 *
 * Each request turns the connection's idle timeout off (`server.timeout(request, 0)`): an
 * upstream may think for minutes before its first byte, and a stream may fall silent, and the
 * gateway's own timeouts govern those. But Bun keeps a request's setting on its connection
 * after the answer, so a keep-alive connection would then never be closed for idling, and a
 * setting made once the answer is out no longer takes (Bun 1.4). So the idle timeout is put
 * back while the answer is still going: as an answer is returned, or for a relayed stream
 * (which may be silent for long) as it ends, before its last bytes are written.
 *
 * Returns the binding to lend the app for the request, and what to call with its answer.
 */
export function idleTimeoutKeeper<T>(server: Server<T>, request: Request, idleSeconds: number): { answerEnd: AnswerEnd; answered(response: Response): Response } {
  // A WebSocket upgrade (realtime) keeps its own idle rules: the session may be quiet for long.
  const upgrade = request.headers.has("upgrade");
  const restore = (): void => {
    if (upgrade) return;
    try {
      server.timeout(request, idleSeconds);
    } catch {
      // The connection is already gone: nothing to time out.
    }
  };
  const answerEnd: AnswerEnd = { later: false, ended: restore };
  return {
    answerEnd,
    answered(response) {
      if (!answerEnd.later) restore();
      return response;
    },
  };
}
