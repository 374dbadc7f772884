/**
 * Chat completions for OpenAI-format providers (pure): streams ask for the final usage chunk,
 * so that cost is always known, and that chunk goes to the log only when the client did not ask
 * for it. Every other field passes untouched.
 * https://platform.openai.com/docs/api-reference/chat/create
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import type { JsonObject, OperationTransforms, StreamUsage } from "../provider.ts";
import { refusedChatField, withoutDroppedFields, type ChatFieldRules } from "./chat-fields.ts";

export type { StreamUsage };

/** Whether the client itself asked for the final usage chunk of a stream. */
export function clientWantsStreamUsage(body: JsonObject): boolean {
  const options = body.stream_options;
  return !!options && typeof options === "object" && (options as JsonObject).include_usage === true;
}

/**
 * `fields`: what the provider does not take (`chat-fields.ts`), refused or left out before the
 * request leaves; `provider` names it in a refusal.
 */
export function openaiChatTransforms(streamUsage: StreamUsage, fields: ChatFieldRules = {}, provider = "This provider"): OperationTransforms {
  const asksForUsage = (body: JsonObject): boolean => streamUsage === "stream_options" && !clientWantsStreamUsage(body);
  return {
    request(clientBody, { stream }) {
      const refused = refusedChatField(clientBody, fields, provider);
      if (refused) return { error: refused };
      const body = withoutDroppedFields(clientBody, fields);
      if (!stream || !asksForUsage(body)) return { body };
      const existing = body.stream_options && typeof body.stream_options === "object" ? body.stream_options : {};
      return { body: { ...body, stream_options: { ...existing, include_usage: true } } };
    },
    stream(clientBody) {
      if (!asksForUsage(clientBody)) return passEvents;
      return {
        event: (event) => [isUsageOnlyChunk(event.data) ? { data: event.data, to: "log" } : withType(event)],
        end: () => [DONE],
      };
    },
  };
}

const DONE: ClientEvent = { data: "[DONE]", to: "client" };

/** Events as they are, closed by `[DONE]`. */
const passEvents: StreamTranslator = { event: (event) => [withType(event)], end: () => [DONE] };

function withType(event: StreamEvent): ClientEvent {
  return event.event === null ? { data: event.data } : { event: event.event, data: event.data };
}

/** The final usage chunk of an OpenAI stream: no choices, a usage object. */
function isUsageOnlyChunk(data: string): boolean {
  if (!data.includes('"usage"')) return false;
  try {
    const chunk = JSON.parse(data) as { choices?: unknown; usage?: unknown };
    return Array.isArray(chunk.choices) && chunk.choices.length === 0 && !!chunk.usage && typeof chunk.usage === "object";
  } catch {
    return false;
  }
}
