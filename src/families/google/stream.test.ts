import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { assembleGeminiResponse, geminiResponseText } from "./assemble.ts";
import { createGeminiStreamTranslator } from "./stream.ts";

const chunk = (fields: Record<string, unknown>) => ({ event: null, data: JSON.stringify({ id: "chatcmpl-9", object: "chat.completion.chunk", model: "gpt-4o-mini", ...fields }) });

describe("chat chunks as Gemini's stream", () => {
  it("sends text as it comes, a function call whole, and finishReason with usage last, with no end marker", () => {
    const translator = createGeminiStreamTranslator();
    const events = [
      chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { content: "lo" }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"ci' } }] }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
      chunk({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } }),
      { event: null, data: "[DONE]" },
    ].flatMap((event) => translator.event(event));
    const sent = [...events, ...translator.end!()];
    expect(sent.every((event) => event.event === undefined)).toBe(true);
    expect(sent.map((event) => JSON.parse(event.data))).toEqual([
      { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] }, index: 0 }], modelVersion: "gpt-4o-mini", responseId: "chatcmpl-9" },
      { candidates: [{ content: { role: "model", parts: [{ text: "lo" }] }, index: 0 }], modelVersion: "gpt-4o-mini", responseId: "chatcmpl-9" },
      {
        candidates: [{ content: { role: "model", parts: [{ functionCall: { id: "call_1", name: "get_weather", args: { city: "Paris" } } }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
        modelVersion: "gpt-4o-mini",
        responseId: "chatcmpl-9",
      },
    ]);
    // The log assembles the events into the response the non-streamed call returns.
    const assembled = assembleGeminiResponse(sent.map((event) => JSON.parse(event.data)));
    expect(assembled).toEqual({
      modelVersion: "gpt-4o-mini",
      responseId: "chatcmpl-9",
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
      candidates: [{ content: { role: "model", parts: [{ text: "Hello" }, { functionCall: { id: "call_1", name: "get_weather", args: { city: "Paris" } } }] }, index: 0, finishReason: "STOP" }],
    });
    expect(geminiResponseText(assembled)).toBe("Hello");
  });

  it("ends a text stream with an empty part carrying STOP, and reports failures in Google's shape", () => {
    const translator = createGeminiStreamTranslator();
    translator.event(chunk({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] }));
    expect(JSON.parse(translator.end!()[0]!.data).candidates).toEqual([{ content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP", index: 0 }]);
    const upstream = translator.event({ event: "error", data: JSON.stringify({ error: { message: "overloaded", type: "server_error" } }) });
    expect(JSON.parse(upstream[0]!.data)).toEqual({ error: { code: 500, message: "overloaded", status: "INTERNAL" } });
    const cut = translator.error!(new GatewayError("request_timeout", "The upstream took too long."));
    expect(JSON.parse(cut[0]!.data).error).toEqual({ code: 408, message: "The upstream took too long.", status: "DEADLINE_EXCEEDED" });
  });
});
