import { beforeAll, describe, expect, it } from "vitest";
import { openaiContractProblems } from "../../../../test/support/contract.ts";
import type { StreamTranslator } from "../../../streams/stream-protocol.ts";
import { chatRequestOf } from "./request.ts";
import { responseOf } from "./response.ts";
import { responsesStreamOf } from "./stream.ts";

beforeAll(() => {
  for (const schema of ["Response", "ResponseStreamEvent"]) openaiContractProblems(schema, {});
}, 60_000);

const request = {
  model: "claude-sonnet-4-5",
  instructions: "Be brief.",
  input: [
    { role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }, { type: "input_image", image_url: "data:image/png;base64,AAAA" }] },
    { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
    { type: "function_call_output", call_id: "call_1", output: '{"temp":21}' },
  ],
  tools: [{ type: "function", name: "weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } }],
  tool_choice: { type: "function", name: "weather" },
  reasoning: { effort: "low" },
  max_output_tokens: 300,
  stream: true,
};

describe("Responses through chat", () => {
  it("turns a Responses request into a chat request: instructions, items, parts, tools, effort, usage asked", () => {
    const chat = chatRequestOf(request);
    expect("body" in chat && chat.body).toEqual({
      model: "claude-sonnet-4-5",
      stream: true,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Weather in Paris?" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: '{"temp":21}' },
      ],
      max_completion_tokens: 300,
      reasoning_effort: "low",
      tools: [{ type: "function", function: { name: "weather", description: "Weather", parameters: request.tools[0]!.parameters } }],
      tool_choice: { type: "function", function: { name: "weather" } },
      stream_options: { include_usage: true },
    });
  });

  it("refuses what a chat provider cannot do, naming the field: built-in tools, stored state, other item types", () => {
    const refused = (body: Record<string, unknown>) => {
      const result = chatRequestOf({ model: "m", input: "hi", ...body });
      return "error" in result ? { status: result.error.status, param: result.error.param } : null;
    };
    // Without web search of its own (the default provider here), the search tool is refused naming it.
    expect(refused({ tools: [{ type: "function", name: "f" }, { type: "web_search_preview" }] })).toEqual({ status: 400, param: "tools.1" });
    expect(refused({ tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] })).toEqual({ status: 400, param: "tools.0" });
    expect(refused({ previous_response_id: "resp_1" })).toEqual({ status: 400, param: "previous_response_id" });
    expect(refused({ background: true })).toEqual({ status: 400, param: "background" });
    expect(refused({ input: [{ type: "file_search_call", id: "x" }] })).toEqual({ status: 400, param: "input.0" });
    expect(refused({ input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] })).toEqual({ status: 400, param: "input.0.content.0" });
  });

  it("turns a chat completion into a Responses answer that matches the official schema", () => {
    const completion = {
      id: "chatcmpl-9",
      object: "chat.completion",
      created: 1700000000,
      model: "claude-sonnet-4-5",
      choices: [
        { index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: "Checking.", tool_calls: [{ id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] } },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27, prompt_tokens_details: { cached_tokens: 4 } },
    };
    const response = responseOf(completion, { ...request, stream: false });
    expect(openaiContractProblems("Response", response)).toEqual([]);
    expect(response).toMatchObject({
      id: "resp_chatcmpl-9",
      status: "completed",
      instructions: "Be brief.",
      output: [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "function_call", call_id: "call_2", name: "weather", arguments: '{"city":"Oslo"}' },
      ],
      usage: { input_tokens: 20, output_tokens: 7, total_tokens: 27, input_tokens_details: { cached_tokens: 4 } },
    });
    expect(responseOf({ ...completion, choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: "cut" } }] }, request)).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
  });

  it("turns chat chunks into typed Responses events in order, each with its sequence number, valid against the official schema", () => {
    const chunks = [
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: { content: "Hel" } }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: { content: "lo" } }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_3", type: "function", function: { name: "weather", arguments: "" } }] } }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] } }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Rome"}' } }] } }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      { id: "c1", object: "chat.completion.chunk", created: 1, model: "claude", choices: [], usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 } },
    ];
    const passChunks: StreamTranslator = { event: (event) => [{ data: event.data }], end: () => [{ data: "[DONE]", to: "client" }] };
    const translator = responsesStreamOf(passChunks, request);
    const events = [...chunks.flatMap((chunk) => translator.event({ event: null, data: JSON.stringify(chunk) })), ...translator.end!()];
    const parsed = events.map((event) => JSON.parse(event.data) as { type: string; sequence_number: number });
    expect(parsed.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(parsed.map((event) => event.sequence_number)).toEqual(parsed.map((_, index) => index));
    expect(events.every((event, index) => event.event === parsed[index]!.type)).toBe(true);
    for (const event of parsed) expect(openaiContractProblems("ResponseStreamEvent", event), event.type).toEqual([]);
    const completed = parsed.at(-1) as unknown as { response: { output: unknown[]; usage: { total_tokens: number } } };
    expect(completed.response.output).toMatchObject([
      { type: "message", content: [{ text: "Hello" }] },
      { type: "function_call", call_id: "call_3", arguments: '{"city":"Rome"}' },
    ]);
    expect(completed.response.usage.total_tokens).toBe(14);
  });
});
