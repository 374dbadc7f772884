import { describe, expect, it } from "vitest";
import { geminiFromChat } from "./response.ts";
import { usageFromMetadata } from "./usage.ts";

describe("a chat completion as a Gemini response", () => {
  it("maps choices to candidates, usage to usageMetadata, and keeps the model and id", () => {
    const response = geminiFromChat({
      id: "chatcmpl-1",
      model: "gpt-4o-mini-2024-07-18",
      choices: [
        { index: 0, message: { role: "assistant", content: "Hi", reasoning_content: "greet" }, finish_reason: "stop" },
        { index: 1, message: { role: "assistant", content: "Hel" }, finish_reason: "length" },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_tokens_details: { cached_tokens: 5 }, completion_tokens_details: { reasoning_tokens: 4 } },
    });
    expect(response).toEqual({
      candidates: [
        { content: { role: "model", parts: [{ text: "greet", thought: true }, { text: "Hi" }] }, index: 0, finishReason: "STOP" },
        { content: { role: "model", parts: [{ text: "Hel" }] }, index: 1, finishReason: "MAX_TOKENS" },
      ],
      usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, thoughtsTokenCount: 4, cachedContentTokenCount: 5, totalTokenCount: 29 },
      modelVersion: "gpt-4o-mini-2024-07-18",
      responseId: "chatcmpl-1",
    });
    // The log reads the counts back as the chat completion gave them.
    expect(usageFromMetadata(response.usageMetadata)).toEqual({ promptTokens: 20, completionTokens: 9, totalTokens: 29, cachedTokens: 5, reasoningTokens: 4 });
  });

  it("maps tool calls to functionCall parts with their ids, and a filtered answer to SAFETY", () => {
    const calls = geminiFromChat({
      choices: [{ message: { content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }, { id: "call_2", type: "function", function: { name: "broken", arguments: "{not json" } }] }, finish_reason: "tool_calls" }],
    });
    expect(calls.candidates).toEqual([
      {
        content: { role: "model", parts: [{ functionCall: { id: "call_1", name: "get_weather", args: { city: "Paris" } } }, { functionCall: { id: "call_2", name: "broken", args: {} } }] },
        index: 0,
        finishReason: "STOP",
      },
    ]);
    expect(geminiFromChat({ choices: [{ message: { content: "" }, finish_reason: "content_filter" }] }).candidates).toEqual([{ content: { role: "model", parts: [{ text: "" }] }, index: 0, finishReason: "SAFETY" }]);
  });
});
