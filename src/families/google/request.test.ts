import { describe, expect, it } from "vitest";
import { chatRequestFromGemini } from "./request.ts";

const translate = (body: Record<string, unknown>, stream = false) => chatRequestFromGemini(body, { model: "gpt-4o-mini", stream });

function chat(body: Record<string, unknown>, stream = false): Record<string, unknown> {
  const result = translate(body, stream);
  if (!result.ok) throw result.error;
  return result.value;
}

function refusal(body: Record<string, unknown>) {
  const result = translate(body);
  expect(result.ok).toBe(false);
  return result.ok ? null : result.error;
}

describe("a Gemini request as a chat completion request", () => {
  it("maps the system instruction, turns, generation config and the stream", () => {
    expect(
      chat(
        {
          systemInstruction: { parts: [{ text: "Be " }, { text: "brief." }] },
          contents: [
            { role: "user", parts: [{ text: "hello" }] },
            { role: "model", parts: [{ text: "thinking…", thought: true }, { text: "hi" }] },
            { parts: [{ text: "again" }, { text: " and again" }] },
          ],
          generationConfig: { temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 64, stopSequences: ["END"], seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.3, candidateCount: 2 },
          safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
        },
        true,
      ),
    ).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
        { role: "user", content: [{ type: "text", text: "again" }, { type: "text", text: " and again" }] },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 64,
      stop: ["END"],
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("sends images, audio and PDFs inline, image URIs by reference", () => {
    const { messages } = chat({
      contents: [
        {
          role: "user",
          parts: [
            { inlineData: { mimeType: "image/png", data: "AAAA" } },
            { inlineData: { mimeType: "audio/mpeg", data: "BBBB" } },
            { inlineData: { mimeType: "application/pdf", data: "CCCC" } },
            { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
            { text: "what are these?" },
          ],
        },
      ],
    });
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "input_audio", input_audio: { data: "BBBB", format: "mp3" } },
          { type: "file", file: { filename: "document.pdf", file_data: "data:application/pdf;base64,CCCC" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "text", text: "what are these?" },
        ],
      },
    ]);
  });

  it("ties function responses to their calls, by id or else by name, as chat tool messages", () => {
    const body = chat({
      contents: [
        { role: "user", parts: [{ text: "weather in Paris and Rome" }] },
        {
          role: "model",
          parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { id: "call_rome", name: "get_weather", args: { city: "Rome" } } }, { thoughtSignature: "c2ln" }],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "call_rome", name: "get_weather", response: { output: "18C" } } },
            { functionResponse: { name: "get_weather", response: { output: "21C" } } },
          ],
        },
      ],
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather by city", parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] } }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
    });
    expect(body.messages).toEqual([
      { role: "user", content: "weather in Paris and Rome" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_rome", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_rome", content: '{"output":"18C"}' },
      { role: "tool", tool_call_id: "call_1_0", content: '{"output":"21C"}' },
    ]);
    expect(body.tools).toEqual([
      { type: "function", function: { name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
    ]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
  });

  it("maps each function calling mode", () => {
    const tools = [{ functionDeclarations: [{ name: "a" }, { name: "b" }, { name: "c", parametersJsonSchema: { type: "object", properties: { x: { type: "integer" } } } }] }];
    const choice = (config: Record<string, unknown>) => chat({ contents: [{ parts: [{ text: "x" }] }], tools, toolConfig: { functionCallingConfig: config } });
    expect(choice({ mode: "AUTO" }).tool_choice).toBe("auto");
    expect(choice({ mode: "NONE" }).tool_choice).toBe("none");
    expect(choice({ mode: "ANY" }).tool_choice).toBe("required");
    const narrowed = choice({ mode: "ANY", allowedFunctionNames: ["a", "c"] });
    expect(narrowed.tool_choice).toBe("required");
    expect((narrowed.tools as { function: { name: string; parameters: unknown } }[]).map((tool) => tool.function)).toEqual([
      { name: "a", parameters: { type: "object", properties: {} } },
      { name: "c", parameters: { type: "object", properties: { x: { type: "integer" } } } },
    ]);
    expect(refusal({ contents: [{ parts: [{ text: "x" }] }], tools, toolConfig: { functionCallingConfig: { mode: "VALIDATED" } } })).toMatchObject({ param: "toolConfig.functionCallingConfig.mode" });
    expect(refusal({ contents: [{ parts: [{ text: "x" }] }], tools, toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["zzz"] } } })).toMatchObject({
      param: "toolConfig.functionCallingConfig.allowedFunctionNames",
    });
  });

  it("maps JSON answers and thinking", () => {
    const schema = { type: "OBJECT", properties: { names: { type: "ARRAY", items: { type: "STRING" }, maxItems: "3" }, note: { type: "STRING", nullable: true } }, propertyOrdering: ["names", "note"] };
    expect(chat({ contents: [{ parts: [{ text: "x" }] }], generationConfig: { responseMimeType: "application/json", responseSchema: schema } }).response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object", properties: { names: { type: "array", items: { type: "string" }, maxItems: 3 }, note: { type: ["string", "null"] } } } },
    });
    expect(chat({ contents: [{ parts: [{ text: "x" }] }], generationConfig: { responseMimeType: "application/json" } }).response_format).toEqual({ type: "json_object" });
    expect(chat({ contents: [{ parts: [{ text: "x" }] }], generationConfig: { thinkingConfig: { thinkingBudget: 8000 } } }).reasoning_effort).toBe("medium");
    expect(chat({ contents: [{ parts: [{ text: "x" }] }], generationConfig: { thinkingConfig: { thinkingLevel: "HIGH" } } }).reasoning_effort).toBe("high");
    expect(chat({ contents: [{ parts: [{ text: "x" }] }], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }).reasoning_effort).toBeUndefined();
  });

  it("refuses what chat completions cannot say, naming the field", () => {
    const text = [{ parts: [{ text: "x" }] }];
    expect(refusal({ contents: text, tools: [{ googleSearch: {} }] })).toMatchObject({ status: 400, param: "tools.0.googleSearch" });
    expect(refusal({ contents: text, cachedContent: "cachedContents/abc" })).toMatchObject({ param: "cachedContent" });
    expect(refusal({ contents: [{ parts: [{ inlineData: { mimeType: "video/mp4", data: "AA" } }] }] })).toMatchObject({ param: "contents.0.parts.0.inlineData.mimeType" });
    expect(refusal({ contents: [{ parts: [{ fileData: { fileUri: "files/abc" } }] }] })).toMatchObject({ param: "contents.0.parts.0.fileData" });
    expect(refusal({ contents: [{ parts: [{ executableCode: { code: "1" } }] }] })).toMatchObject({ param: "contents.0.parts.0" });
    expect(refusal({ contents: [{ parts: [{ functionResponse: { name: "nobody", response: {} } }] }] })).toMatchObject({ param: "contents.0.parts.0.functionResponse.name" });
    expect(refusal({ contents: [{ role: "model", parts: [{ inlineData: { mimeType: "image/png", data: "AA" } }] }] })).toMatchObject({ param: "contents.0.parts.0" });
    expect(refusal({ contents: text, systemInstruction: { parts: [{ inlineData: { mimeType: "image/png", data: "AA" } }] } })).toMatchObject({ param: "systemInstruction.parts.0" });
    expect(refusal({ contents: text, generationConfig: { responseModalities: ["TEXT", "IMAGE"] } })).toMatchObject({ param: "generationConfig.responseModalities" });
    expect(refusal({ contents: text, generationConfig: { responseMimeType: "text/x.enum" } })).toMatchObject({ param: "generationConfig.responseMimeType" });
    expect(refusal({ contents: text, generationConfig: { responseLogprobs: true } })).toMatchObject({ param: "generationConfig.responseLogprobs" });
  });
});
