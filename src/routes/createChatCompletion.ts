import { createChatCompletionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, pipelineRoute, proxyDeps, proxyResponse, type ProxyRouteHeaders } from "../core/proxy-route.ts";
import { createChatStreamAssembler } from "../core/chat-stream-assembler.ts";
import { parseObject } from "../core/json-answer.ts";
import { inputText, outputText } from "../guardrails/index.ts";

export const chatCompletionOperation: OperationDescriptor = {
  id: "createChatCompletion",
  method: "POST",
  upstreamPath: "/chat/completions",
  body: "json",
  answer: "json",
  format: "chat",
  guardrails: { input: inputText, output: outputText, streamOutput: streamedText },
};

export function registerCreateChatCompletion(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  pipelineRoute(app, createChatCompletionRoute, deps, async (c) => {
    const valid = c.req as unknown as { valid(target: "json"): Record<string, unknown>; valid(target: "header"): ProxyRouteHeaders };
    return proxyResponse(c, await proxyOperation(chatCompletionOperation, await jsonProxyInput(c, valid.valid("json"), valid.valid("header")), core));
  });
}

/** The assistant text of a streamed completion, assembled from its chunks. */
function streamedText(chunks: readonly string[]): string {
  const assembler = createChatStreamAssembler();
  for (const chunk of chunks) assembler.add(parseObject(chunk));
  return outputText(assembler.result().completion as Record<string, unknown>);
}
