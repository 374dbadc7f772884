import { createMessageRoute } from "../generated/routes.gen.ts";
import { alwaysCacheable } from "../operation/descriptor.ts";
import { chatRequestFromMessages, messagesAnswers, messagesFromChat, messagesInputText, messagesSemanticSplit, messageStreamText, messageText } from "../families/messages/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { anthropicRoute, withAnthropicKey } from "./proxy/anthropic-route.ts";

/**
 * Anthropic Messages in, any provider out: the request is translated into a chat completion,
 * served as one by every provider's chat transforms, and its answer translated back. The log
 * keeps the request and the answer as the client sent and got them. Any answer may be cached.
 */
export const messageOperation = proxiedOperation(createMessageRoute, {
  upstreamPath: { fixed: "/chat/completions" },
  answers: messagesAnswers,
  cache: alwaysCacheable,
  semantic: messagesSemanticSplit,
  overrides: jsonFieldOverrides,
  translated: messagesFromChat,
  // Input guardrails judge the chat body the core holds; output ones the Anthropic answer.
  guardrails: { input: messagesInputText, output: messageText, streamOutput: messageStreamText },
});

export const registerCreateMessage = proxiedRoute(anthropicRoute(createMessageRoute), messageOperation, {
  async prepare(c, read) {
    const input = withAnthropicKey(c, read);
    if (input.body.kind !== "json") return input;
    const chat = chatRequestFromMessages(input.body.value);
    if (!chat.ok) throw chat.error;
    const clientBodyText = input.body.raw ?? JSON.stringify(input.body.value);
    return { ...input, body: { kind: "json", value: chat.value }, clientBodyText };
  },
});
