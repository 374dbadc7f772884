import { describe, expect, it } from "vitest";
import { toGeminiChatRequest } from "./chat-request.ts";

const plain = { model: "gemini-2.5-flash", stream: false };

describe("Gemini chat request", () => {
  it("names the model in the path, and asks for SSE when streaming", () => {
    expect(toGeminiChatRequest({ messages: [] }, plain).path).toBe("/models/gemini-2.5-flash:generateContent");
    expect(toGeminiChatRequest({ messages: [] }, { model: "models/gemini-2.5-pro", stream: true }).path).toBe(
      "/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    );
  });

  it("moves system and developer messages to systemInstruction and merges neighbouring turns", () => {
    const { body } = toGeminiChatRequest(
      {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hello" },
          { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
          { role: "user", content: [{ type: "text", text: "How are you?" }] },
          { role: "assistant", content: "Bien." },
        ],
      },
      plain,
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }, { text: "Answer in French." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Hello" }, { text: "How are you?" }] },
      { role: "model", parts: [{ text: "Bien." }] },
    ]);
  });

  it("sends images inline from data URLs and by reference from http URLs", () => {
    const { body } = toGeminiChatRequest(
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Compare" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/cat.JPG?size=large" } },
              { type: "image_url", image_url: { url: "https://example.com/picture" } },
            ],
          },
        ],
      },
      plain,
    );
    expect(body.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "Compare" },
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.JPG?size=large" } },
          { fileData: { fileUri: "https://example.com/picture" } },
        ],
      },
    ]);
  });

  it("turns tool calls into functionCall parts and tool answers into functionResponse parts named after their call", () => {
    const { body } = toGeminiChatRequest(
      {
        messages: [
          { role: "user", content: "Weather in Paris and Rome?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_b__ts__c2lnbmF0dXJl", type: "function", function: { name: "get_time", arguments: "not json" } },
            ],
          },
          { role: "tool", tool_call_id: "call_a", content: '{"temp":21}' },
          { role: "tool", tool_call_id: "call_b__ts__c2lnbmF0dXJl", content: "noon" },
        ],
      },
      plain,
    );
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { name: "get_time", args: { arguments: "not json" } }, thoughtSignature: "c2lnbmF0dXJl" },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temp: 21 } } },
          { functionResponse: { name: "get_time", response: { output: "noon" } } },
        ],
      },
    ]);
  });

  it("declares function tools with cleaned parameters and maps tool_choice", () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather",
          strict: true,
          parameters: {
            type: "object",
            additionalProperties: false,
            properties: { city: { type: "string" }, unit: { type: ["string", "null"], enum: ["c", "f", null] } },
            required: ["city", "unit"],
          },
        },
      },
      { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } },
      { type: "custom", custom: { name: "free_text" } },
    ];
    const { body } = toGeminiChatRequest({ messages: [], tools, tool_choice: { type: "function", function: { name: "get_weather" } } }, plain);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Current weather",
            parameters: {
              type: "object",
              properties: { city: { type: "string" }, unit: { type: "string", nullable: true, enum: ["c", "f"] } },
              required: ["city", "unit"],
            },
          },
          { name: "ping" },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
    for (const [choice, mode] of [["none", "NONE"], ["auto", "AUTO"], ["required", "ANY"]] as const) {
      expect(toGeminiChatRequest({ messages: [], tool_choice: choice }, plain).body.toolConfig).toEqual({ functionCallingConfig: { mode } });
    }
  });

  it("maps sampling, length, stop, format and reasoning effort to generationConfig", () => {
    const { body } = toGeminiChatRequest(
      {
        messages: [{ role: "user", content: "Hi" }],
        max_tokens: 50,
        max_completion_tokens: 100,
        temperature: 0.2,
        top_p: 0.9,
        n: 2,
        stop: "END",
        seed: 7,
        user: "someone",
        reasoning_effort: "low",
        response_format: {
          type: "json_schema",
          json_schema: { name: "answer", strict: true, schema: { type: "object", properties: { ok: { type: "boolean" } }, additionalProperties: false } },
        },
      },
      plain,
    );
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      candidateCount: 2,
      seed: 7,
      stopSequences: ["END"],
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    expect(body).not.toHaveProperty("user");
    expect(toGeminiChatRequest({ messages: [], reasoning_effort: "none" }, plain).body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
    expect(toGeminiChatRequest({ messages: [] }, plain).body).toEqual({ contents: [] });
  });
});
