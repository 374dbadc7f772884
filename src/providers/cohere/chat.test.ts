import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { cohereChatRequest } from "./chat-request.ts";
import { cohereChatCompletion } from "./chat-response.ts";
import { cohereChatStream } from "./chat-stream.ts";
import { cohereSseProtocol } from "./index.ts";

const sse = (type: string, body: object) => ({ event: type, data: JSON.stringify({ type, ...body }) });

describe("Cohere chat translation", () => {
  it("translates messages, tools and parameters, leaving out what Cohere does not take", () => {
    const sent = cohereChatRequest(
      {
        model: "c",
        messages: [
          { role: "developer", content: [{ type: "text", text: "Be brief." }] },
          { role: "user", content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AA==", detail: "low" } }] },
          { role: "assistant", content: "", tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "t1", content: "done" },
        ],
        tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
        tool_choice: "none",
        max_completion_tokens: 9,
        response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } },
        user: "u",
        stream_options: { include_usage: true },
      },
      { model: "command-a-03-2025", stream: true },
    );
    expect(sent).toEqual({
      path: "/v2/chat",
      body: {
        model: "command-a-03-2025",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }] },
          { role: "assistant", tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "t1", content: "done" },
        ],
        tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
        tool_choice: "NONE",
        max_tokens: 9,
        response_format: { type: "json_object", json_schema: { type: "object" } },
        stream: true,
      },
    });
  });

  it("refuses a field Cohere does not take, naming it", () => {
    const refused = cohereChatRequest({ model: "c", messages: [], top_logprobs: 2 }, { model: "c", stream: false });
    expect("error" in refused && refused.error).toBeInstanceOf(GatewayError);
    expect("error" in refused && refused.error.param).toBe("top_logprobs");
  });

  it("reads an answer with tool calls and billed usage", () => {
    const completion = cohereChatCompletion(
      {
        id: "a1",
        finish_reason: "TOOL_CALL",
        message: { role: "assistant", tool_plan: "I will call f.", tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: '{"x":1}' } }] },
        usage: { billed_units: { input_tokens: 5, output_tokens: 2 }, tokens: { input_tokens: 50, output_tokens: 3 } },
      },
      "c",
    );
    expect(completion).toMatchObject({
      id: "a1",
      model: "c",
      choices: [{ message: { role: "assistant", content: null, tool_calls: [{ id: "t1", function: { name: "f", arguments: '{"x":1}' } }] }, finish_reason: "tool_calls" }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
  });

  it("streams text, a tool call and the usage as chat chunks", () => {
    const translator = cohereChatStream({ stream_options: { include_usage: true } }, { model: "c" });
    const events = [
      sse("message-start", { id: "m1", delta: { message: { role: "assistant" } } }),
      sse("content-delta", { index: 0, delta: { message: { content: { type: "text", text: "Hi" } } } }),
      sse("tool-plan-delta", { delta: { message: { tool_plan: "plan" } } }),
      sse("tool-call-start", { index: 0, delta: { message: { tool_calls: { id: "t1", type: "function", function: { name: "f", arguments: "" } } } } }),
      sse("tool-call-delta", { index: 0, delta: { message: { tool_calls: { function: { arguments: '{"x":1}' } } } } }),
      sse("message-end", { delta: { finish_reason: "TOOL_CALL", usage: { billed_units: { input_tokens: 3, output_tokens: 4 } } } }),
    ].flatMap((event) => translator.event(event));
    const chunks = [...events, ...translator.end!()].map((event) => (event.data === "[DONE]" ? event.data : JSON.parse(event.data)));
    expect(chunks.map((chunk) => (typeof chunk === "string" ? chunk : chunk.choices[0]?.delta ?? chunk.usage))).toEqual([
      { role: "assistant", content: "" },
      { content: "Hi" },
      { tool_calls: [{ index: 0, id: "t1", type: "function", function: { name: "f", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] },
      {},
      { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      "[DONE]",
    ]);
    expect(chunks[4].choices[0].finish_reason).toBe("tool_calls");
    expect(chunks[0].id).toBe("m1");
  });

  it("ends a stream at message-end, named by the event or by its data's type only", () => {
    expect(cohereSseProtocol.isLast!({ event: "message-end", data: "{}" })).toBe(true);
    expect(cohereSseProtocol.isLast!({ event: null, data: '{"delta":{},"type":"message-end"}' })).toBe(true);
    expect(cohereSseProtocol.isLast!({ event: null, data: '{"type":"content-delta","delta":{"message":{"content":{"text":"\\"type\\":\\"message-end\\""}}}}' })).toBe(false);
    expect(cohereSseProtocol.isLast!({ event: "content-delta", data: '{"type":"content-delta"}' })).toBe(false);
  });
});
