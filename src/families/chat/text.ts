/** The text the guardrail checks look at, taken from chat request and completion bodies. */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A message content: a string, or the `text` of its text parts (image, audio… parts are skipped). */
function contentText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isRecord(part) && typeof part.text === "string" ? [part.text] : []));
}

/**
 * The text of every message of a chat request body (all roles, in order), joined by newlines.
 * Contents may be strings or arrays of parts; non-text parts and null contents are skipped. Never throws.
 */
export function inputText(body: Record<string, unknown>): string {
  const messages = body.messages;
  if (!Array.isArray(messages)) return "";
  return messages.flatMap((message) => (isRecord(message) ? contentText(message.content) : [])).join("\n");
}

/** The assistant text of a chat completion body: every `choices[].message.content`, joined by newlines. Never throws. */
export function outputText(body: Record<string, unknown>): string {
  const choices = body.choices;
  if (!Array.isArray(choices)) return "";
  return choices
    .flatMap((choice) => (isRecord(choice) && isRecord(choice.message) ? contentText(choice.message.content) : []))
    .join("\n");
}
