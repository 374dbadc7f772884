/**
 * How the log reads an answer, per format: the body to keep, the token usage, the served model.
 * https://platform.openai.com/docs/api-reference/chat/object
 * https://platform.openai.com/docs/api-reference/embeddings/object
 * https://platform.openai.com/docs/api-reference/responses/object
 */
import { createChatStreamAssembler, normaliseUsage, type Usage } from "../streams/chat-stream-assembler.ts";
import { capText } from "../lib/body-capture.ts";
import { terminalResponse } from "../streams/responses-text.ts";
import { balancedEnd } from "../guardrails/json-extract.ts";
import { assembleMessage } from "../inbound/anthropic-messages/assemble.ts";
import { usageFromMessage } from "../inbound/anthropic-messages/usage.ts";
import type { AnswerFormat } from "../operation/answer-format.ts";
import type { LoggedResponse } from "./log-entry.ts";

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

interface StreamRead {
  /** The value logged as the body, serialised and cut to the limit by the caller. */
  body: unknown;
  usage: Usage | null;
  servedModel: string | null;
}

/** Reads a stream's event data, in order. Never throws. */
type StreamReader = (chunks: readonly string[]) => StreamRead;

const STREAM_READERS: Record<AnswerFormat, StreamReader> = {
  chat(chunks) {
    const assembler = createChatStreamAssembler();
    for (const chunk of chunks) assembler.add(safeParse(chunk));
    const { completion, usage } = assembler.result();
    return { body: completion, usage, servedModel: stringField(completion, "model") };
  },
  responses(chunks) {
    const events = chunks.map((chunk) => safeParse(chunk) ?? chunk);
    const final = terminalResponse(events);
    if (!final) return STREAM_READERS.json(chunks);
    return { body: final, usage: readUsage(final.usage), servedModel: stringField(final, "model") };
  },
  messages(chunks) {
    const message = assembleMessage(chunks.map(safeParse));
    if (!message) return STREAM_READERS.json(chunks);
    return { body: message, usage: usageFromMessage(message.usage), servedModel: stringField(message, "model") };
  },
  stored(chunks) {
    return { ...STREAM_READERS.responses(chunks), usage: null };
  },
  json(chunks) {
    const events = chunks.map((chunk) => safeParse(chunk) ?? chunk);
    let usage: Usage | null = null;
    let servedModel: string | null = null;
    for (const event of events) {
      usage = readUsage(field(event, "usage")) ?? readUsage(field(field(event, "response"), "usage")) ?? usage;
      servedModel ??= stringField(event, "model") ?? stringField(field(event, "response"), "model");
    }
    return { body: events, usage, servedModel };
  },
  image: (chunks) => STREAM_READERS.json(chunks),
  speech: (chunks) => STREAM_READERS.json(chunks),
  transcription: (chunks) => STREAM_READERS.json(chunks),
  video: (chunks) => STREAM_READERS.json(chunks),
};

/** The log's reading of a response in the given format. Never throws. */
export function readAnswer(response: LoggedResponse | null, format: AnswerFormat): ReadAnswer {
  if (!response) return { body: null, usage: null, servedModel: null, totalBytes: null, truncated: false };
  if (response.kind === "error") return { body: JSON.stringify(response.body), usage: null, servedModel: null, totalBytes: null, truncated: false };
  const { totalBytes } = response;
  if (response.kind === "stream") {
    const { body, usage, servedModel } = STREAM_READERS[format](response.chunks);
    const cut = capText(JSON.stringify(body), response.maxBytes);
    return { body: cut.text, usage, servedModel, totalBytes, truncated: response.truncated || cut.truncated };
  }
  const { text, truncated } = response;
  if (text === null) return { body: null, usage: null, servedModel: null, totalBytes, truncated };
  const counted = format !== "stored";
  const usageOf = format === "messages" ? usageFromMessage : readUsage;
  if (!truncated) {
    const parsed = safeParse(text);
    return { body: text, usage: counted ? usageOf(field(parsed, "usage")) : null, servedModel: stringField(parsed, "model"), totalBytes, truncated };
  }
  // Only the ends were kept: `usage` comes from the tail, the served model from the head.
  const usage = counted ? usageOf(safeParse(lastObjectValue(response.tail ?? "", "usage") ?? "")) : null;
  return { body: text, usage, servedModel: firstStringValue(text, "model"), totalBytes, truncated };
}

/** A `usage` object in the chat or embeddings names, or the Responses API's `input_tokens`/`output_tokens`. */
export function readUsage(raw: unknown): Usage | null {
  if (field(raw, "prompt_tokens") !== undefined || field(raw, "input_tokens") === undefined) return normaliseUsage(raw);
  return normaliseUsage({
    prompt_tokens: field(raw, "input_tokens"),
    completion_tokens: field(raw, "output_tokens"),
    total_tokens: field(raw, "total_tokens"),
    prompt_tokens_details: field(raw, "input_tokens_details"),
    completion_tokens_details: field(raw, "output_tokens_details"),
    server_tool_use: field(raw, "server_tool_use"),
  });
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
  const value = match ? safeParse(match[1]!) : null;
  return typeof value === "string" && value.length > 0 ? value : null;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function stringField(value: unknown, key: string): string | null {
  const found = field(value, key);
  return typeof found === "string" && found.length > 0 ? found : null;
}
