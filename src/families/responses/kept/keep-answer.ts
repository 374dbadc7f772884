import { captureBody } from "../../../cache/answer-capture.ts";
import type { ProxyResponse } from "../../../operation/proxy-response.ts";
import { isoNow } from "../../../lib/ids.ts";
import type { StoredResponsesRepository } from "../../../store/stored-responses-repository.ts";
import { conversationAfter, finalResponseOf } from "./kept-responses.ts";

/** The largest answer kept (a stream's events included): beyond it the response is served, not kept. */
const MAX_KEPT_BYTES = 8 * 1024 * 1024;

/**
 * The answer as it is, with a copy kept once it has been sent whole: a JSON response, or the
 * final `response.completed` of a stream. Kept off the request's path; a failed write is reported
 * on stderr and costs the client nothing but the follow-up.
 */
export function keepAnswer(answer: ProxyResponse, sentInput: unknown, workspaceId: string, repository: StoredResponsesRepository): ProxyResponse {
  if (answer.status !== 200) return answer;
  const keep = (response: Record<string, unknown> | null): void => {
    if (!response || typeof response.id !== "string") return;
    repository
      .put({ workspaceId, id: response.id, response, conversation: conversationAfter(sentInput, response), createdAt: isoNow() })
      .catch((error: unknown) => console.error(`[gateway] could not keep response ${response.id}: ${error instanceof Error ? error.message : String(error)}`));
  };
  if (typeof answer.body === "string") {
    try {
      keep(JSON.parse(answer.body) as Record<string, unknown>);
    } catch {
      // Not a response object: nothing to keep.
    }
    return answer;
  }
  return { ...answer, body: captureBody(answer.body, MAX_KEPT_BYTES, (text) => keep(finalResponseOf(text)), () => undefined) };
}
