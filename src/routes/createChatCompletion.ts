import { createChatCompletionRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatCacheRule } from "../cache/cacheable.ts";
import { chatSemanticSplit } from "../cache/semantic-split.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxiedRoute } from "./proxied-route.ts";
import { createChatStreamAssembler } from "../streams/chat-stream-assembler.ts";
import { parseObject } from "../lib/json-object.ts";
import { inputText, outputText } from "../guardrails/index.ts";

export const chatCompletionOperation: OperationDescriptor = {
  id: "createChatCompletion",
  method: "POST",
  upstreamPath: { fixed: "/chat/completions" },
  body: "json",
  answer: "json",
  format: "chat",
  cache: chatCacheRule,
  semantic: chatSemanticSplit,
  genAiOperation: "chat",
  overrides: chatFieldOverrides,
  guardrails: { input: inputText, output: outputText, streamOutput: streamedText },
};

export const registerCreateChatCompletion = proxiedRoute(createChatCompletionRoute, chatCompletionOperation);

/** The assistant text of a streamed completion, assembled from its chunks. */
function streamedText(chunks: readonly string[]): string {
  const assembler = createChatStreamAssembler();
  for (const chunk of chunks) assembler.add(parseObject(chunk));
  return outputText(assembler.result().completion as Record<string, unknown>);
}
