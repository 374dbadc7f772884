/**
 * What an OpenAI-format provider does with chat completion fields it does not take (pure):
 * fields its docs say it answers 400 to are refused by the gateway first, naming the field and
 * the provider; fields its docs say it ignores (or mishandles) are removed before sending. Each
 * rule comes from the provider's own documentation, linked from its catalogue entry.
 */
import { GatewayError } from "../../errors.ts";
import type { ChatFieldRules, JsonObject } from "../provider.ts";

export type { ChatFieldRules };


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
