import { describe, expect, it } from "vitest";
import { messageUsage, usageFromMessage } from "./usage.ts";

describe("usage between the chat and Messages formats", () => {
  it("reads an Anthropic answer's searches for the log, and keeps them when a chat answer becomes a Messages one", () => {
    const anthropic = { input_tokens: 900, output_tokens: 40, cache_read_input_tokens: 100, server_tool_use: { web_search_requests: 2 } };
    expect(usageFromMessage(anthropic)).toEqual({ promptTokens: 1000, completionTokens: 40, totalTokens: 1040, cachedTokens: 100, reasoningTokens: 0, webSearches: 2 });
    expect(usageFromMessage({ input_tokens: 5, output_tokens: 1 })).not.toHaveProperty("webSearches");
    const chat = { prompt_tokens: 50, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 0 }, server_tool_use: { web_search_requests: 1 } };
    expect(messageUsage(chat)).toEqual({ input_tokens: 50, output_tokens: 12, cache_creation_input_tokens: null, cache_read_input_tokens: 0, server_tool_use: { web_search_requests: 1 } });
  });
});
