/**
 * The text and the final object of the Responses API's bodies and streams, for guardrails and
 * the log. Pure; never throws.
 * https://platform.openai.com/docs/api-reference/responses/create
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */
import { parseObject } from "../../operation/answer-reader.ts";
import type { StreamEvent } from "../../streams/stream-protocol.ts";

type JsonRecord = Record<string, unknown>;

/** The stream events that carry the finished response object; nothing of the response follows them. */
export const TERMINAL_RESPONSE_EVENTS: ReadonlySet<string> = new Set(["response.completed", "response.failed", "response.incomplete"]);

/**
 * Whether a stream event is a terminal one, by its `event:` line, or without one by its data's
 * `type` (parsed only when the data names a terminal type at all).
 */
export function isResponsesStreamEnd(event: StreamEvent): boolean {
  if (event.event !== null) return TERMINAL_RESPONSE_EVENTS.has(event.event);
  if (![...TERMINAL_RESPONSE_EVENTS].some((type) => event.data.includes(`"${type}"`))) return false;
  const type = parseObject(event.data)?.type;
  return typeof type === "string" && TERMINAL_RESPONSE_EVENTS.has(type);
}

/**
 * The text a request gives the model: `instructions`, then `input` (a string, or the text of its
 * message items: a string content or the `input_text` parts), joined by newlines.
 */
export function responsesInputText(body: JsonRecord): string {
  const parts: string[] = [];
  if (typeof body.instructions === "string" && body.instructions.length > 0) parts.push(body.instructions);
  const { input } = body;
  if (typeof input === "string") parts.push(input);
  else if (Array.isArray(input)) {
    for (const item of input) {
      if (!isRecord(item) || (item.type !== undefined && item.type !== "message")) continue;
      parts.push(...partsText(item.content, "input_text"));
    }
  }
  return parts.join("\n");
}

/** The model's text in a response object: the `output_text` parts of its `message` items, joined by newlines. */
export function responsesOutputText(response: JsonRecord): string {
  const { output } = response;
  if (!Array.isArray(output)) return "";
  return output
    .flatMap((item) => (isRecord(item) && item.type === "message" ? partsText(item.content, "output_text") : []))
    .join("\n");
}

/**
 * The model's text in a stream, from its events' data: the `response.output_text.delta` events
 * assembled, and the final response's text when it says something the deltas did not (so the
 * judged text covers all the client was shown).
 */
export function responsesStreamText(chunks: readonly string[]): string {
  const events = chunks.map(parseObject);
  const deltas = events.map((event) => (event?.type === "response.output_text.delta" && typeof event.delta === "string" ? event.delta : "")).join("");
  const final = terminalResponse(events);
  const finalText = final ? responsesOutputText(final) : "";
  if (finalText === "" || finalText === deltas) return deltas;
  return deltas === "" ? finalText : `${deltas}\n${finalText}`;
}

/**
 * The response object of the last `response.completed`, `response.failed` or
 * `response.incomplete` event, or null when the stream carried none (it was cut).
 */
export function terminalResponse(events: readonly unknown[]): JsonRecord | null {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (isRecord(event) && typeof event.type === "string" && TERMINAL_RESPONSE_EVENTS.has(event.type) && isRecord(event.response)) return event.response;
  }
  return null;
}

function partsText(content: unknown, partType: string): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isRecord(part) && part.type === partType && typeof part.text === "string" ? [part.text] : []));
}

function isRecord(value: unknown): value is JsonRecord {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
