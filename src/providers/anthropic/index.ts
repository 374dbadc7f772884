/**
 * Anthropic's Messages API behind the chat completions operation (prompt completions run it
 * too). Other operations have no transform here, so the core answers them 400 naming Anthropic.
 * https://docs.anthropic.com/en/api/messages
 */
import type { Provider } from "../provider.ts";
import { authorizeAnthropic } from "./auth.ts";
import { anthropicBatch } from "./batch.ts";
import { chatRequest } from "./chat-request.ts";
import { chatResponse } from "./chat-response.ts";
import { chatStream } from "./chat-stream.ts";
import { anthropicSseProtocol } from "./stream-protocol.ts";
import { anthropicUpstreamError } from "./upstream-error.ts";
import { anthropicSearchQueries, anthropicStreamSearches } from "./web-search.ts";

export const anthropicProvider: Provider = {
  id: "anthropic",
  name: "Anthropic",
  baseUrl: "https://api.anthropic.com/v1",
  docs: "https://docs.anthropic.com/en/api/messages",
  openaiFormat: false,
  // count_tokens is the Messages API's own: its body passes as the client sent it.
  operations: { createChatCompletion: { request: chatRequest, response: chatResponse, stream: chatStream }, countMessageTokens: {} },
  streamProtocol: anthropicSseProtocol,
  batch: anthropicBatch,
  webSearch: { queries: anthropicSearchQueries, streamSearches: anthropicStreamSearches },
  authorize: authorizeAnthropic,
  error: anthropicUpstreamError,
};
