import type { SemanticSplit } from "../../operation/descriptor.ts";
import type { JsonObject } from "../../providers/provider.ts";

/**
 * The semantic split of chat bodies (`OperationDescriptor.semantic`), and what the other splits
 * share. Each takes the last user turn's text out of the body and leaves a placeholder, so two
 * requests that differ only in that turn have the same `rest`. A turn that is not plain text
 * (an image, audio, a tool result) is not compared by meaning: its answer depends on more than
 * the words, so such a body is cached by exact match only.
 */

/** Where the compared turn stood: the same text in every `rest`, so `rest` hashes alike. */
export const SEMANTIC_TURN = "\u0000semantic-turn";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The text of a content value: a string, or an array of text parts only (`text`, `input_text`). */
export function plainText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (!isObject(part) || (part.type !== "text" && part.type !== "input_text") || typeof part.text !== "string") return null;
    texts.push(part.text);
  }
  return texts.join("\n");
}

export const nonEmpty = (text: string | null): text is string => text !== null && text.trim() !== "";

/** Chat completions (and Anthropic Messages, translated to chat): the last message, when it is the user's. */
export const chatSemanticSplit: SemanticSplit = (body) => {
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0) return null;
  const last = messages[messages.length - 1];
  if (!isObject(last) || last.role !== "user") return null;
  const text = plainText(last.content);
  if (!nonEmpty(text)) return null;
  return { text, rest: { ...body, messages: [...messages.slice(0, -1), { ...last, content: SEMANTIC_TURN }] } };
};

