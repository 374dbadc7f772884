import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import type { StreamEvent } from "../../streams/stream-protocol.ts";
import { converseRequest } from "./converse-request.ts";
import { chatCompletionFrom } from "./converse-response.ts";
import { converseStreamTranslator } from "./converse-stream.ts";

const MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("OpenAI chat → Converse", () => {
  it("translates system, images, tool calls, tool results, tools, choice and inference settings", () => {
    const translated = converseRequest(
      {
        model: MODEL,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Use metric units." }] },
          { role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] },
          { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
          { role: "tool", tool_call_id: "call_1", content: "18 degrees" },
          { role: "user", content: "And tomorrow?" },
        ],
        tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        max_tokens: 256,
        temperature: 0.2,
        top_p: 0.9,
        stop: "END",
      },
      { model: MODEL, stream: true },
    );
    expect(translated).not.toBeInstanceOf(GatewayError);
    expect(translated).toEqual({
      path: "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream",
      body: {
        system: [{ text: "Be brief." }, { text: "Use metric units." }],
        messages: [
          { role: "user", content: [{ text: "Weather here?" }, { image: { format: "png", source: { bytes: PNG } } }] },
          { role: "assistant", content: [{ toolUse: { toolUseId: "call_1", name: "get_weather", input: { city: "Paris" } } }] },
          // The tool result and the next user turn are one user turn: Converse alternates roles.
          { role: "user", content: [{ toolResult: { toolUseId: "call_1", content: [{ text: "18 degrees" }] } }, { text: "And tomorrow?" }] },
        ],
        inferenceConfig: { maxTokens: 256, temperature: 0.2, topP: 0.9, stopSequences: ["END"] },
        toolConfig: {
          tools: [{ toolSpec: { name: "get_weather", description: "Weather", inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } } } }],
          toolChoice: { tool: { name: "get_weather" } },
        },
      },
    });
  });

  it("maps tool_choice required to any and none to no tools", () => {
    const tools = [{ type: "function", function: { name: "f" } }];
    const messages = [{ role: "user", content: "hi" }];
    const required = converseRequest({ messages, tools, tool_choice: "required" }, { model: MODEL, stream: false }) as { body: Record<string, unknown> };
    expect(required.body.toolConfig).toEqual({ tools: [{ toolSpec: { name: "f", inputSchema: { json: { type: "object", properties: {} } } } }], toolChoice: { any: {} } });
    const none = converseRequest({ messages, tools, tool_choice: "none" }, { model: MODEL, stream: false }) as { body: Record<string, unknown> };
    expect(none.body.toolConfig).toBeUndefined();
  });

  it("refuses what Converse cannot take, naming the field", () => {
    const refused = (body: Record<string, unknown>) => converseRequest(body, { model: MODEL, stream: false }) as GatewayError;
    expect(refused({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] }).param).toBe("messages[0].content[0].image_url.url");
    expect(refused({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/tiff;base64,AAAA" } }] }] }).param).toBe("messages[0].content[0].image_url.url");
    expect(refused({ messages: [{ role: "assistant", tool_calls: [{ id: "c", function: { name: "f", arguments: "{oops" } }] }] }).param).toBe("messages[0].tool_calls[0].function.arguments");
    expect(refused({ messages: [], n: 2 }).param).toBe("n");
    expect(refused({ messages: [], response_format: { type: "json_object" } }).param).toBe("response_format");
    expect(refused({ messages: [{ role: "user", content: "x" }], tools: [{ type: "custom", custom: { name: "x" } }] }).param).toBe("tools[0].type");
  });

  it("passes reasoning_effort only to models that reason, in their family's terms", () => {
    const body = { messages: [{ role: "user", content: "x" }], reasoning_effort: "high" };
    const fields = (model: string) => (converseRequest(body, { model, stream: false }) as { body: Record<string, unknown> }).body.additionalModelRequestFields;
    expect(fields("us.anthropic.claude-sonnet-4-20250514-v1:0")).toEqual({ reasoning_config: { type: "enabled", budget_tokens: 16384 } });
    // Without a limit, the answer gets room beyond the thinking budget.
    const claude = converseRequest(body, { model: "anthropic.claude-sonnet-4-20250514-v1:0", stream: false }) as { body: Record<string, unknown> };
    expect(claude.body.inferenceConfig).toEqual({ maxTokens: 16384 + 4096 });
    expect(fields("anthropic.claude-3-7-sonnet-20250219-v1:0")).toEqual({ reasoning_config: { type: "enabled", budget_tokens: 16384 } });
    expect(fields(MODEL)).toBeUndefined();
    expect(fields("amazon.nova-2-lite-v1:0")).toEqual({ reasoningConfig: { type: "enabled", maxReasoningEffort: "high" } });
    expect(fields("openai.gpt-oss-120b-1:0")).toEqual({ reasoning_effort: "high" });
    expect(fields("meta.llama3-3-70b-instruct-v1:0")).toBeUndefined();
  });
});

describe("Converse → OpenAI chat", () => {
  it("translates text, tool uses, stop reasons and usage", () => {
    const completion = chatCompletionFrom(
      {
        output: { message: { role: "assistant", content: [{ text: "Checking." }, { toolUse: { toolUseId: "t1", name: "get_weather", input: { city: "Paris" } } }] } },
        stopReason: "tool_use",
        usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
      },
      MODEL,
    );
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: MODEL,
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: { role: "assistant", content: "Checking.", tool_calls: [{ id: "t1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 } },
    });
    for (const [stopReason, finish] of [["end_turn", "stop"], ["max_tokens", "length"], ["stop_sequence", "stop"], ["guardrail_intervened", "content_filter"], ["content_filtered", "content_filter"]]) {
      expect((chatCompletionFrom({ output: { message: { content: [] } }, stopReason }, MODEL).choices as { finish_reason: string }[])[0]!.finish_reason).toBe(finish);
    }
  });
});

describe("ConverseStream → OpenAI chunks", () => {
  const events: StreamEvent[] = [
    { event: "messageStart", data: '{"role":"assistant"}' },
    { event: "contentBlockDelta", data: '{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Hmm."}}}' },
    { event: "contentBlockDelta", data: '{"contentBlockIndex":1,"delta":{"text":"Let me check."}}' },
    { event: "contentBlockStart", data: '{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"t1","name":"a"}}}' },
    { event: "contentBlockDelta", data: '{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\\"x\\":"}}}' },
    { event: "contentBlockDelta", data: '{"contentBlockIndex":2,"delta":{"toolUse":{"input":"1}"}}}' },
    { event: "contentBlockStop", data: '{"contentBlockIndex":2}' },
    { event: "contentBlockStart", data: '{"contentBlockIndex":3,"start":{"toolUse":{"toolUseId":"t2","name":"b"}}}' },
    { event: "messageStop", data: '{"stopReason":"tool_use"}' },
    { event: "metadata", data: '{"usage":{"inputTokens":4,"outputTokens":6,"totalTokens":10}}' },
  ];

  it("numbers tool calls by their order, ends with the finish reason, and sends usage to the log unless asked", () => {
    const translator = converseStreamTranslator({}, MODEL);
    const out = events.flatMap((event) => translator.event(event));
    const chunks = out.map((event) => JSON.parse(event.data));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(chunks[1].choices[0].delta).toEqual({ reasoning_content: "Hmm." });
    expect(chunks[2].choices[0].delta).toEqual({ content: "Let me check." });
    expect(chunks[3].choices[0].delta.tool_calls).toEqual([{ index: 0, id: "t1", type: "function", function: { name: "a", arguments: "" } }]);
    expect(chunks[4].choices[0].delta.tool_calls).toEqual([{ index: 0, function: { arguments: '{"x":' } }]);
    expect(chunks[6].choices[0].delta.tool_calls[0]).toMatchObject({ index: 1, id: "t2" });
    expect(chunks[7].choices[0].finish_reason).toBe("tool_calls");
    expect(out.at(-1)).toMatchObject({ to: "log" });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(translator.end?.()).toEqual([{ data: "[DONE]", to: "client" }]);
    const asked = converseStreamTranslator({ stream_options: { include_usage: true } }, MODEL);
    expect(asked.event(events.at(-1)!)[0]).toMatchObject({ to: "both" });
  });

  it("turns an exception event into the client's error event with its status", () => {
    const [error] = converseStreamTranslator({}, MODEL).event({ event: "throttlingException", data: '{"message":"slow down"}' });
    expect(error?.event).toBe("error");
    expect(JSON.parse(error!.data)).toMatchObject({ error: { message: "slow down", code: "ThrottlingException", type: "rate_limit_error" } });
  });
});
