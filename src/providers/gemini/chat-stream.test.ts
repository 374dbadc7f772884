import { describe, expect, it } from "vitest";
import type { ClientEvent } from "../../streams/stream-protocol.ts";
import { geminiChatStream } from "./chat-stream.ts";

const sse = (value: unknown) => ({ event: null, data: JSON.stringify(value) });
const parsed = (events: ClientEvent[]) => events.map((event) => (event.data === "[DONE]" ? "[DONE]" : JSON.parse(event.data)));

describe("Gemini stream as chat completion chunks", () => {
  it("streams text, then a finish chunk, the usage to the log only, and [DONE]", () => {
    const translator = geminiChatStream({ model: "@gemini/gemini-2.5-flash", stream: true });
    const first = translator.event(sse({ responseId: "s1", candidates: [{ index: 0, content: { role: "model", parts: [{ text: "Hel" }] } }] }));
    const second = translator.event(
      sse({
        responseId: "s1",
        candidates: [{ index: 0, content: { role: "model", parts: [{ text: "lo" }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      }),
    );
    expect(parsed(first)).toEqual([
      {
        id: "chatcmpl-s1",
        object: "chat.completion.chunk",
        created: expect.any(Number),
        model: "gemini-2.5-flash",
        choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, logprobs: null, finish_reason: null }],
      },
    ]);
    expect(parsed(second)[0].choices).toEqual([{ index: 0, delta: { content: "lo" }, logprobs: null, finish_reason: null }]);
    const end = translator.end!();
    expect(parsed(end)).toEqual([
      expect.objectContaining({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }] }),
      expect.objectContaining({ choices: [], usage: expect.objectContaining({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }) }),
      "[DONE]",
    ]);
    expect(end.map((event) => event.to)).toEqual([undefined, "log", "client"]);
  });

  it("numbers tool-call deltas across chunks and finishes with tool_calls; usage reaches a client that asked", () => {
    const translator = geminiChatStream({ model: "gemini-2.5-pro", stream: true, stream_options: { include_usage: true } });
    const a = translator.event(sse({ candidates: [{ content: { parts: [{ text: "thinking", thought: true }, { functionCall: { name: "a", args: { x: 1 } } }] } }] }));
    const b = translator.event(
      sse({ candidates: [{ content: { parts: [{ functionCall: { name: "b", args: {} } }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 1 } }),
    );
    expect(parsed(a)[0].choices[0].delta).toEqual({
      role: "assistant",
      reasoning_content: "thinking",
      tool_calls: [{ index: 0, id: "call_0_0", type: "function", function: { name: "a", arguments: '{"x":1}' } }],
    });
    expect(parsed(b)[0].choices[0].delta).toEqual({
      tool_calls: [{ index: 1, id: "call_0_1", type: "function", function: { name: "b", arguments: "{}" } }],
    });
    const end = translator.end!();
    expect(parsed(end)[0].choices[0].finish_reason).toBe("tool_calls");
    expect(end[1]?.to).toBe("both");
  });

  it("ends a blocked prompt with content_filter, and a stream cut before any finish with an error event", () => {
    const blocked = geminiChatStream({ model: "gemini-2.5-flash" });
    expect(blocked.event(sse({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" } }))).toEqual([]);
    expect(parsed(blocked.end!())[0].choices).toEqual([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: "content_filter" }]);

    const cut = geminiChatStream({ model: "gemini-2.5-flash" });
    cut.event(sse({ candidates: [{ content: { parts: [{ text: "partial" }] } }] }));
    const end = cut.end!();
    expect(end).toHaveLength(1);
    expect(end[0]?.event).toBe("error");
    expect(JSON.parse(end[0]!.data).error.code).toBe("upstream_error");
  });

  it("turns a Google error inside the stream into the gateway's error event", () => {
    const translator = geminiChatStream({ model: "gemini-2.5-flash" });
    const [event] = translator.event(sse({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }));
    expect(event?.event).toBe("error");
    expect(JSON.parse(event!.data)).toEqual({ error: { message: "The model is overloaded.", type: "server_error", code: "UNAVAILABLE", param: null } });
    const [wrapped] = translator.event({ event: null, data: JSON.stringify([{ error: { code: 429, message: "Quota", status: "RESOURCE_EXHAUSTED" } }]) });
    expect(JSON.parse(wrapped!.data).error).toMatchObject({ message: "Quota", type: "rate_limit_error" });
  });
});
