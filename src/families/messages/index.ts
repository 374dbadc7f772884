/**
 * The Messages family: Anthropic Messages in, chat completions out (`POST /v1/messages`,
 * `POST /v1/messages/count_tokens`). Requests are translated to chat, served by every provider's
 * chat transforms, and their answers translated back; the log reads the answer the client got.
 * The transforms here are pure.
 * https://docs.anthropic.com/en/api/messages
 */
import type { AnswerTranslation } from "../../operation/descriptor.ts";
import { jsonAnswers, parseJson, stringField, type AnswerReader } from "../../operation/answer-reader.ts";
import { messageFromChat } from "./response.ts";
import { createMessagesStreamTranslator } from "./stream.ts";
import { assembleMessage, messageText } from "./assemble.ts";
import { usageFromMessage } from "./usage.ts";
import { chatSemanticSplit, inputText } from "../chat/index.ts";

export { chatRequestFromMessages } from "./request.ts";
export { assembleMessage, messageText } from "./assemble.ts";

/** Chat completion answers (JSON and streams) as Anthropic's. */
export const messagesFromChat: AnswerTranslation = {
  via: "createChatCompletion",
  response: messageFromChat,
  stream: () => createMessagesStreamTranslator(),
};

/** A message's usage in Anthropic's names; a stream assembled into the message the non-streamed call returns. */
export const messagesAnswers: AnswerReader = {
  name: "messages",
  usage: usageFromMessage,
  stream(chunks) {
    const message = assembleMessage(chunks.map(parseJson));
    if (!message) return jsonAnswers.stream(chunks);
    return { body: message, usage: usageFromMessage(message.usage), servedModel: stringField(message, "model") };
  },
};

/** The semantic cache compares the last user turn of the chat translation, the body the core holds. */
export const messagesSemanticSplit = chatSemanticSplit;

/** Input guardrails judge the chat translation's text, the body the core holds. */
export const messagesInputText = inputText;

/** The assistant text of a streamed message, from its events' data. */
export function messageStreamText(chunks: readonly string[]): string {
  return messageText(assembleMessage(chunks.map(parseJson)));
}
