import { createChatCompletionRoute } from "../generated/routes.gen.ts";
import { chatAnswers, chatCacheRule, chatSemanticSplit, chatStreamText, inputText, outputText } from "../families/chat/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Chat completions: a JSON answer, or with `stream` server-sent events ending in `[DONE]`,
 * assembled into one completion for the log. Cached unless the body asks the provider to store
 * the completion; the semantic cache compares the last user message. Guardrails judge every
 * message's text on the way in and the choices' text on the way out.
 * https://platform.openai.com/docs/api-reference/chat
 */
export const chatCompletionOperation = proxiedOperation(createChatCompletionRoute, {
  answers: chatAnswers,
  cache: chatCacheRule,
  semantic: chatSemanticSplit,
  genAiOperation: "chat",
  overrides: jsonFieldOverrides,
  guardrails: { input: inputText, output: outputText, streamOutput: chatStreamText },
});

export const registerCreateChatCompletion = proxiedRoute(createChatCompletionRoute, chatCompletionOperation);
