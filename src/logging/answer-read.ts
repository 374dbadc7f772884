/**
 * The log's reading of an answer: the body kept (cut to the limit), the token usage, the served
 * model, by the reader the entry names (`OperationDescriptor.answers`). The readers are the
 * families' own, imported here by name, so the log writer finds them on any thread.
 */
import { capText } from "../lib/body-capture.ts";
import { balancedEnd } from "../guardrails/json-extract.ts";
import { field, jsonAnswers, parseJson, stringField, type AnswerReader } from "../operation/answer-reader.ts";
import { withSearches, type Usage } from "../operation/usage.ts";
import { chatAnswers } from "../families/chat/index.ts";
import { responsesAnswers, storedAnswers } from "../families/responses/index.ts";
import { messagesAnswers } from "../families/messages/index.ts";
import { geminiAnswers } from "../families/google/index.ts";
import { imageAnswers, speechAnswers, transcriptionAnswers, videoAnswers } from "../families/media/index.ts";
import { rerankAnswers } from "../families/rerank/index.ts";
import type { LoggedResponse } from "./log-entry.ts";

const READERS: ReadonlyMap<string, AnswerReader> = new Map(
  [jsonAnswers, chatAnswers, responsesAnswers, storedAnswers, messagesAnswers, geminiAnswers, imageAnswers, speechAnswers, transcriptionAnswers, videoAnswers, rerankAnswers].map((reader) => [reader.name, reader]),
);

/** The reader a log entry names; an unknown name (an entry spooled by another version) reads as plain JSON. */
export function answerReader(name: string): AnswerReader {
  return READERS.get(name) ?? jsonAnswers;
}

/** What the log keeps of an answer. */
export interface ReadAnswer {
  /** The body as text; null when there was none or it was not text. */
  body: string | null;
  usage: Usage | null;
  servedModel: string | null;
  /** The answer's full size in bytes; null when unknown. */
  totalBytes: number | null;
  truncated: boolean;
}

/** The log's reading of a response by the given reader. Never throws. */
export function readAnswer(response: LoggedResponse | null, reader: AnswerReader): ReadAnswer {
  if (!response) return { body: null, usage: null, servedModel: null, totalBytes: null, truncated: false };
  if (response.kind === "error") return { body: JSON.stringify(response.body), usage: null, servedModel: null, totalBytes: null, truncated: false };
  const { totalBytes } = response;
  if (response.kind === "stream") {
    const { body, usage, servedModel } = reader.stream(response.chunks);
    const cut = capText(JSON.stringify(body), response.maxBytes);
    return { body: cut.text, usage, servedModel, totalBytes, truncated: response.truncated || cut.truncated };
  }
  const { text, truncated } = response;
  if (text === null) return { body: null, usage: null, servedModel: null, totalBytes, truncated };
  const fields = reader.fields ?? { usage: "usage", model: "model" };
  if (!truncated) {
    const parsed = parseJson(text);
    const usage = reader.usage(field(parsed, fields.usage));
    return { body: text, usage: reader.searches ? withSearches(usage, reader.searches(parsed)) : usage, servedModel: stringField(parsed, fields.model), totalBytes, truncated };
  }
  // Only the ends were kept: `usage` comes from the tail, the served model from the head.
  const usage = reader.usage(parseJson(lastObjectValue(response.tail ?? "", fields.usage) ?? ""));
  return { body: text, usage, servedModel: firstStringValue(text, fields.model), totalBytes, truncated };
}

/**
 * The JSON text of the object after the last `"<key>":` in `text`, found by matching braces
 * outside strings; null when there is none or it is cut off.
 */
export function lastObjectValue(text: string, key: string): string | null {
  const match = [...text.matchAll(new RegExp(`"${key}"\\s*:\\s*\\{`, "g"))].at(-1);
  if (!match) return null;
  const start = match.index + match[0].length - 1;
  const end = balancedEnd(text, start);
  return end === -1 ? null : text.slice(start, end);
}

/** The first string value of `"<key>":` in `text` (JSON that may be cut off), or null. */
function firstStringValue(text: string, key: string): string | null {
  const match = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(text);
  const value = match ? parseJson(match[1]!) : null;
  return typeof value === "string" && value.length > 0 ? value : null;
}
