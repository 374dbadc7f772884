import { describe, expect, it } from "vitest";
import { messageFromChat, stopReason, toolInput } from "./response.ts";

describe("chat completion → Anthropic message", () => {
  it("maps text, tool calls, reasoning and usage (cached tokens apart)", () => {
    const message = messageFromChat({
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            reasoning_content: "Let me think.",
            content: "Calling it.",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 10 } },
    });
    expect(message).toEqual({
      id: "chatcmpl-1",
      type: "message",
      role: "assistant",
      model: "gpt-4o-mini",
      content: [
        { type: "thinking", thinking: "Let me think.", signature: "" },
        { type: "text", text: "Calling it." },
        { type: "tool_use", id: "call_1", name: "f", input: { a: 1 } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: null, cache_read_input_tokens: 10 },
    });
  });

  it("maps a refusal to a text block and stop_reason refusal", () => {
    const message = messageFromChat({ id: "c", model: "m", choices: [{ message: { role: "assistant", content: null, refusal: "I can't help with that." }, finish_reason: "stop" }] });
    expect(message.content).toEqual([{ type: "text", text: "I can't help with that." }]);
    expect(message.stop_reason).toBe("refusal");
    expect(message.usage).toEqual({ input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: 0 });
  });

  it("maps every finish reason", () => {
    expect(stopReason("stop")).toBe("end_turn");
    expect(stopReason("length")).toBe("max_tokens");
    expect(stopReason("tool_calls")).toBe("tool_use");
    expect(stopReason("function_call")).toBe("tool_use");
    expect(stopReason("content_filter")).toBe("refusal");
    expect(stopReason(null)).toBeNull();
  });

  it("reads malformed tool arguments as an empty input", () => {
    expect(toolInput('{"a":')).toEqual({});
    expect(toolInput("[1]")).toEqual({});
    expect(toolInput(null)).toEqual({});
  });
});
