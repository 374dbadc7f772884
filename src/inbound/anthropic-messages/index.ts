/**
 * Anthropic Messages in, chat completions out: the inbound translation layer of
 * `POST /v1/messages`. The transforms here are pure; `proxy-input.ts` reads the request.
 */
import type { AnswerTranslation } from "../../operation/descriptor.ts";
import { messageFromChat } from "./response.ts";
import { createMessagesStreamTranslator } from "./stream.ts";

export { chatRequestFromMessages } from "./request.ts";
export { assembleMessage, messageText } from "./assemble.ts";

/** Chat completion answers (JSON and streams) as Anthropic's. */
export const messagesFromChat: AnswerTranslation = {
  via: "createChatCompletion",
  response: messageFromChat,
  stream: () => createMessagesStreamTranslator(),
};
