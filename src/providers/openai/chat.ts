/**
 * Chat completions for OpenAI-format providers (pure): streams ask for the final usage chunk,
 * so that cost is always known, and that chunk goes to the log only when the client did not ask
 * for it. Every other field passes untouched.
 * https://platform.openai.com/docs/api-reference/chat/create
 */
import type { ClientEvent, StreamEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import { GatewayError } from "../../errors.ts";
import type { ChatFieldRules, JsonObject, OperationTransforms, StreamUsage } from "../provider.ts";

export type { StreamUsage };

/** Whether the client itself asked for the final usage chunk of a stream. */
export function clientWantsStreamUsage(body: JsonObject): boolean {
  const options = body.stream_options;
  return !!options && typeof options === "object" && (options as JsonObject).include_usage === true;
}

/**
 * `fields`: what the provider does not take (below), refused or left out before the request
 * leaves; `provider` names it in a refusal.
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

/*
 * What an OpenAI-format provider does with chat completion fields it does not take (pure):
 * fields its docs say it answers 400 to are refused by the gateway first, naming the field and
 * the provider; fields its docs say it ignores (or mishandles) are removed before sending. Each
 * rule comes from the provider's own documentation, linked from its catalogue entry.
 */

const MESSAGE_FIELD = /^messages\[\]\.(.+)$/;

const sent = (value: unknown): boolean => value !== undefined && value !== null;

/** The refusal for the first field of `body` the rules refuse, or null. */
export function refusedChatField(body: JsonObject, rules: ChatFieldRules, provider: string): GatewayError | null {
  for (const field of rules.refuse ?? []) {
    const messageField = MESSAGE_FIELD.exec(field)?.[1];
    if (messageField !== undefined) {
      const index = messagesOf(body).findIndex((message) => sent(message[messageField]));
      if (index !== -1) return refusal(`messages[${index}].${messageField}`, `${provider} does not accept \`${messageField}\` on a message`);
    } else if (sent(body[field])) {
      return refusal(field, `${provider} does not accept \`${field}\``);
    }
  }
  for (const [field, value] of Object.entries(rules.only ?? {})) {
    if (sent(body[field]) && body[field] !== value) return refusal(field, `${provider} accepts \`${field}\` only as ${JSON.stringify(value)}`);
  }
  return null;
}

/** The body without the fields the rules drop; the same object when none is there. */
export function withoutDroppedFields(body: JsonObject, rules: ChatFieldRules): JsonObject {
  const dropped = (rules.drop ?? []).filter((field) => field in body);
  if (dropped.length === 0) return body;
  const copy = { ...body };
  for (const field of dropped) delete copy[field];
  return copy;
}

function messagesOf(body: JsonObject): JsonObject[] {
  return Array.isArray(body.messages) ? body.messages.filter((message): message is JsonObject => typeof message === "object" && message !== null) : [];
}

function refusal(param: string, reason: string): GatewayError {
  return new GatewayError("invalid_request", `${reason}: leave out \`${param}\`, or send the request to another provider.`, { param });
}
