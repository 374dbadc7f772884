import { describe, expect, it } from "vitest";
import { chatResponse } from "./chat-response.ts";

describe("anthropic chat response", () => {
  it("joins text, keeps thinking as reasoning_content, turns tool_use into tool_calls and maps usage", () => {
    const answer = chatResponse({
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [
        { type: "thinking", thinking: "Paris is in France.", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Let me check. " },
        { type: "text", text: "One moment." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 50 },
    });
    expect(answer).toMatchObject({
      id: "msg_01",
      object: "chat.completion",
      model: "claude-sonnet-4-5-20250929",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Let me check. One moment.",
            refusal: null,
            reasoning_content: "Paris is in France.",
            tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
          },
          logprobs: null,
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 160, completion_tokens: 20, total_tokens: 180, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 50 } },
    });
    expect(typeof answer.created).toBe("number");
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
  ])("maps stop reason %s to %s", (stopReason, finish) => {
    const answer = chatResponse({ id: "m", model: "claude-haiku-4-5", content: [], stop_reason: stopReason, usage: { input_tokens: 1, output_tokens: 0 } });
    const choice = (answer.choices as Array<{ finish_reason: string; message: { content: unknown } }>)[0]!;
    expect(choice.finish_reason).toBe(finish);
    expect(choice.message.content).toBeNull();
  });
});
