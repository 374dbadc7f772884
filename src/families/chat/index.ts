/**
 * The chat family: what chat completions, prompt runs and Anthropic Messages (served as chat)
 * share. A completion or its stream read for the log, the cache rule, what the semantic cache
 * compares, and the text guardrails judge.
 * https://platform.openai.com/docs/api-reference/chat
 */
import type { CacheRule } from "../../operation/descriptor.ts";
import { parseJson, readUsage, stringField, type AnswerReader } from "../../operation/answer-reader.ts";
import { createChatStreamAssembler } from "./stream-assembler.ts";
import { outputText } from "./text.ts";

export { createChatStreamAssembler, type ChatStreamAssembler } from "./stream-assembler.ts";
export { chatSemanticSplit, nonEmpty, plainText, SEMANTIC_TURN } from "./semantic-split.ts";
export { inputText, outputText } from "./text.ts";

/** A completion's `usage`; a stream assembled into the completion the non-streamed call returns. */
export const chatAnswers: AnswerReader = {
  name: "chat",
  usage: readUsage,
  stream(chunks) {
    const completion = assembled(chunks);
    return { body: completion.completion, usage: completion.usage, servedModel: stringField(completion.completion, "model") };
  },
};

/** `store: true` keeps the completion upstream (evals, distillation), which a cache hit would skip. */
export const chatCacheRule: CacheRule = (body) => (body.store === true ? "store" : null);

/** The assistant text of a streamed completion, assembled from its chunks' data. */
export function chatStreamText(chunks: readonly string[]): string {
  return outputText(assembled(chunks).completion);
}

function assembled(chunks: readonly string[]) {
  const assembler = createChatStreamAssembler();
  for (const chunk of chunks) assembler.add(parseJson(chunk));
  return assembler.result();
}
