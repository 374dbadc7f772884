/**
 * How the log reads an operation's answers: the body to keep, the token usage, the served model,
 * and, for answers not priced by tokens, their cost. An operation names its reader in its
 * descriptor (`OperationDescriptor.answers`); the readers several operations share live in their
 * family module (`families/`). A log entry carries its reader's `name` to the log writer, which
 * may run on another thread and finds the reader by that name among the families it imports.
 * https://platform.openai.com/docs/api-reference/chat/object
 * https://platform.openai.com/docs/api-reference/responses/object
 */
import { normaliseUsage, type Usage } from "./usage.ts";

/** A stream read for the log. */
export interface StreamRead {
  /** The value logged as the body, serialised and cut to the limit by the caller. */
  body: unknown;
  usage: Usage | null;
  servedModel: string | null;
}

/** What an answer priced by its content (not by tokens) is read from: the logged request and answer. */
export interface PricedAnswer {
  provider: string | null;
  model: string | null;
  /** The logged request body. */
  requestBody: string | null;
  /** The logged answer body (JSON, a stream's events as a JSON array, or a binary answer's metadata). */
  answerBody: string | null;
  succeeded: boolean;
}

/** One family's way of reading answers. Every function is pure and never throws. */
export interface AnswerReader {
  /** Unique among readers: what a log entry carries to name it. */
  readonly name: string;
  /** A JSON answer's `usage` in the gateway's terms; null when the answer's tokens are not counted (work done earlier). */
  usage(raw: unknown): Usage | null;
  /** Where a JSON answer holds what `usage` reads, and the served model's name; absent: `usage` and `model`. */
  fields?: { usage: string; model: string };
  /**
   * The searches a whole JSON answer shows that its `usage` does not count (a Responses answer's
   * `web_search_call` items: OpenAI bills each call but reports no count); absent: none.
   */
  searches?(answer: unknown): number;
  /** A stream's event data, in order. */
  stream(chunks: readonly string[]): StreamRead;
  /** The answer's cost in USD when it is priced by what it holds (images, seconds of audio); null when it cannot be known. */
  cost?(answer: PricedAnswer): number | null;
}

/**
 * Any JSON operation without a family of its own (embeddings, lists, files, the pass-through):
 * `usage` in the chat or Responses names, a stream kept as the array of its events.
 */
export const jsonAnswers: AnswerReader = {
  name: "json",
  usage: readUsage,
  stream(chunks) {
    const events = chunks.map((chunk) => parseJson(chunk) ?? chunk);
    let usage: Usage | null = null;
    let servedModel: string | null = null;
    for (const event of events) {
      usage = readUsage(field(event, "usage")) ?? readUsage(field(field(event, "response"), "usage")) ?? usage;
      servedModel ??= stringField(event, "model") ?? stringField(field(event, "response"), "model");
    }
    return { body: events, usage, servedModel };
  },
};

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

/** The JSON value of a text, or null when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** A non-empty string field, or null. */
export function stringField(value: unknown, key: string): string | null {
  const found = field(value, key);
  return typeof found === "string" && found.length > 0 ? found : null;
}
