/**
 * The Responses API's state for providers that keep none (those reached through their chat
 * translation): the gateway keeps each answer, so `GET /v1/responses/{id}` reads it and
 * `previous_response_id` continues it. A follow-up's input is the kept conversation (earlier
 * input items, then the answer's output items) followed by its own input.
 */
import { eventData, eventName } from "../../../cache/cache-replay.ts";

type Item = Record<string, unknown>;

const isObject = (value: unknown): value is Item => typeof value === "object" && value !== null && !Array.isArray(value);

/** A request's input as items: a string is one user message. */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }];
  return Array.isArray(input) ? input : [];
}

/** The request with the kept conversation in front of its input, and no `previous_response_id`. */
export function continued(body: Item, conversation: unknown[]): Item {
  const { previous_response_id: _previous, ...rest } = body;
  return { ...rest, input: [...conversation, ...inputItems(body.input)] };
}

/** Output items a follow-up carries: the model's, and a tool run's (an approval request is answered in the follow-up). */
const KEPT_ITEM_TYPES: ReadonlySet<unknown> = new Set(["message", "function_call", "mcp_list_tools", "mcp_call", "mcp_approval_request"]);

/** The conversation a follow-up of this answer continues: the input items sent, then the output. */
export function conversationAfter(sentInput: unknown, response: Item): unknown[] {
  const output = Array.isArray(response.output) ? response.output.filter((item) => isObject(item) && KEPT_ITEM_TYPES.has(item.type)) : [];
  return [...inputItems(sentInput), ...output];
}

/** The final response of a finished Responses stream (`response.completed` or `incomplete`), or null. */
export function finalResponseOf(streamText: string): Item | null {
  for (const event of streamText.split("\n\n").reverse()) {
    const name = eventName(`${event}\n\n`);
    if (name !== "response.completed" && name !== "response.incomplete") continue;
    const [data] = eventData(`${event}\n\n`);
    try {
      const parsed: unknown = JSON.parse(data ?? "");
      return isObject(parsed) && isObject(parsed.response) ? parsed.response : null;
    } catch {
      return null;
    }
  }
  return null;
}
