import { describe, expect, it } from "vitest";
import { toOpenAiChatCompletion } from "./chat-response.ts";

describe("Gemini answer as a chat completion", () => {
  it("reads text, thoughts and usage (thoughts counted as reasoning inside completion tokens)", () => {
    const completion = toOpenAiChatCompletion({
      responseId: "abc123",
      modelVersion: "gemini-2.5-flash",
      candidates: [
        {
          index: 0,
          finishReason: "STOP",
          content: { role: "model", parts: [{ text: "Let me think.", thought: true }, { text: "Hello " }, { text: "there" }] },
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 6, cachedContentTokenCount: 3, totalTokenCount: 20 },
    });
    expect(completion).toMatchObject({
      id: "chatcmpl-abc123",
      object: "chat.completion",
      model: "gemini-2.5-flash",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Hello there", refusal: null, reasoning_content: "Let me think." },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 10,
        total_tokens: 20,
        prompt_tokens_details: { cached_tokens: 3 },
        completion_tokens_details: { reasoning_tokens: 6 },
      },
    });
    expect(completion.created).toEqual(expect.any(Number));
  });

  it("turns function calls into tool calls with deterministic ids, carrying a thought signature", () => {
    const answer = {
      responseId: "r1",
      candidates: [
        {
          finishReason: "STOP",
          content: {
            role: "model",
            parts: [
              { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig" },
              { functionCall: { name: "get_time", args: {} } },
            ],
          },
        },
      ],
    };
    const first = toOpenAiChatCompletion(answer);
    expect(first.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [
            { id: "call_r1_0_0__ts__sig", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_r1_0_1", type: "function", function: { name: "get_time", arguments: "{}" } },
          ],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ]);
    expect(toOpenAiChatCompletion(answer).choices).toEqual(first.choices);
  });

  it("maps length and safety stops, and a blocked prompt to content_filter with empty content", () => {
    const reason = (finishReason: string) =>
      (toOpenAiChatCompletion({ candidates: [{ finishReason, content: { parts: [{ text: "x" }] } }] }).choices as { finish_reason: string }[])[0]!.finish_reason;
    expect(reason("MAX_TOKENS")).toBe("length");
    for (const filtered of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]) expect(reason(filtered)).toBe("content_filter");
    expect(reason("OTHER")).toBe("stop");

    const blocked = toOpenAiChatCompletion({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } });
    expect(blocked.choices).toEqual([{ index: 0, message: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: "content_filter" }]);
    expect(blocked.model).toBe("");
    expect(toOpenAiChatCompletion({ candidates: [] }, { model: "@gemini/gemini-2.5-pro" }).model).toBe("gemini-2.5-pro");
    expect(blocked.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 0, total_tokens: 7 });
  });
});
