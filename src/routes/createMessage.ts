import { createMessageRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { alwaysCacheable } from "../cache/cacheable.ts";
import { chatSemanticSplit } from "../cache/semantic-split.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxyOperation } from "../pipeline/proxy-operation.ts";
import { loggedRoute, proxyDeps, proxyResponse } from "./proxy/proxy-route.ts";
import { inputText } from "../guardrails/index.ts";
import { assembleMessage, chatRequestFromMessages, messagesFromChat, messageText } from "../inbound/anthropic-messages/index.ts";
import { anthropicProxyInput } from "./proxy/anthropic-proxy-input.ts";
import { parseObject } from "../lib/json-object.ts";
import { anthropicErrors } from "../middleware/anthropic-errors.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Anthropic Messages in, any provider out: the request is translated into a chat completion,
 * served as one by every provider's chat transforms, and its answer translated back. The log
 * keeps the request and the answer as the client sent and got them.
 */
export const messageOperation: OperationDescriptor = {
  id: "createMessage",
  method: "POST",
  upstreamPath: { fixed: "/chat/completions" },
  body: "json",
  answer: "json",
  format: "messages",
  cache: alwaysCacheable,
  // The body the core sees is the chat translation of the Messages request.
  semantic: chatSemanticSplit,
  overrides: chatFieldOverrides,
  translated: messagesFromChat,
  // Input guardrails judge the chat body the core holds; output ones the Anthropic answer.
  guardrails: { input: inputText, output: messageText, streamOutput: (chunks) => messageText(assembleMessage(chunks.map(parseObject))) },
};

export function registerCreateMessage(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  const route = { ...createMessageRoute, middleware: [anthropicErrors(), createMessageRoute.middleware] };
  app.openapi(
    loggedRoute(route, deps, messageOperation),
    async (c) => {
      const body = c.req.valid("json");
      const input = await anthropicProxyInput(c, body, c.req.valid("header"));
      if (!input.ok) throw input.error;
      const chat = chatRequestFromMessages(body);
      if (!chat.ok) throw chat.error;
      const clientBodyText = input.value.body.kind === "json" ? (input.value.body.raw ?? JSON.stringify(body)) : undefined;
      return proxyResponse(c, await proxyOperation(messageOperation, { ...input.value, body: { kind: "json", value: chat.value }, clientBodyText }, core));
    },
    logHeadersHook,
  );
}
