import { describe, expect, it } from "vitest";
import { chatRequest, DEFAULT_MAX_TOKENS, THINKING_BUDGET } from "./chat-request.ts";

/** The translated request; narrowed so the helper also types where a transform may answer an error instead. */
function translate(body: Record<string, unknown>, stream = false): { body: Record<string, unknown>; path?: string } {
  const out = chatRequest({ model: "claude-sonnet-4-5", ...body }, { model: "claude-sonnet-4-5", stream });
  if (!("body" in out)) throw new Error("the request was refused");
  return out;
}

describe("anthropic chat request", () => {
  it("hoists system and developer messages, merges same-role turns, and targets /messages", () => {
    const { body, path } = translate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
        { role: "developer", content: [{ type: "text", text: "Use British spelling.", cache_control: { type: "ephemeral" } }] },
        { role: "user", content: [{ type: "text", text: "Colour?" }] },
        { role: "assistant", content: "Grey." },
        { role: "assistant", content: "" },
      ],
      temperature: 0.3,
      top_p: 0.9,
      stop: "END",
      user: "user-42",
    });
    expect(path).toBe("/messages");
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: DEFAULT_MAX_TOKENS,
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Use British spelling.", cache_control: { type: "ephemeral" } },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Hello" }, { type: "text", text: "Colour?" }] },
        { role: "assistant", content: [{ type: "text", text: "Grey." }] },
      ],
      temperature: 0.3,
      top_p: 0.9,
      stop_sequences: ["END"],
      metadata: { user_id: "user-42" },
    });
  });

  it("turns tool calls into tool_use blocks and tool messages into one user turn of tool_result blocks", () => {
    const { body } = translate({
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "toolu_2", type: "function", function: { name: "get_weather", arguments: "not json" } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "18C" },
        { role: "tool", tool_call_id: "toolu_2", content: [{ type: "text", text: "21C" }] },
        { role: "user", content: "Thanks" },
      ],
      tools: [
        { type: "function", function: { name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string" } } } } },
        { type: "function", function: { name: "now" }, cache_control: { type: "ephemeral" } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
    });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18C" },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "21C" }] },
          { type: "text", text: "Thanks" },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      { name: "get_weather", description: "Weather by city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
      { name: "now", input_schema: { type: "object", properties: {} }, cache_control: { type: "ephemeral" } },
    ]);
    expect(body.tool_choice).toEqual({ type: "tool", name: "get_weather", disable_parallel_tool_use: true });
  });

  it("maps every tool_choice, and drops it when there are no tools", () => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    expect(translate({ messages: [], tools, tool_choice: "auto" }).body.tool_choice).toEqual({ type: "auto" });
    expect(translate({ messages: [], tools, tool_choice: "none" }).body.tool_choice).toEqual({ type: "none" });
    expect(translate({ messages: [], tools, tool_choice: "required" }).body.tool_choice).toEqual({ type: "any" });
    expect(translate({ messages: [], tools, parallel_tool_calls: false }).body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(translate({ messages: [], tool_choice: "required" }).body).not.toHaveProperty("tool_choice");
  });

  it("sends image URLs as url sources and data URLs as base64", () => {
    const { body } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Compare" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" }, cache_control: { type: "ephemeral" } },
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=" } },
          ],
        },
      ],
    });
    expect((body.messages as Array<{ content: unknown[] }>)[0]!.content).toEqual([
      { type: "text", text: "Compare" },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" }, cache_control: { type: "ephemeral" } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
    ]);
  });

  it("prefers max_completion_tokens and fits the thinking budget of reasoning_effort under the cap", () => {
    expect(translate({ messages: [], max_tokens: 100, max_completion_tokens: 200 }).body.max_tokens).toBe(200);
    expect(translate({ messages: [], max_tokens: 100 }).body.max_tokens).toBe(100);
    const uncapped = translate({ messages: [], reasoning_effort: "high" }).body;
    expect(uncapped).toMatchObject({ max_tokens: THINKING_BUDGET.high! + DEFAULT_MAX_TOKENS, thinking: { type: "enabled", budget_tokens: 16384 } });
    expect(translate({ messages: [], reasoning_effort: "medium", max_completion_tokens: 3000 }).body.thinking).toEqual({ type: "enabled", budget_tokens: 2999 });
    expect(translate({ messages: [], reasoning_effort: "low", max_tokens: 500 }).body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(translate({ messages: [], reasoning_effort: "none" }).body).not.toHaveProperty("thinking");
  });

  it("asks for a stream only when streaming, and leaves out what it does not translate", () => {
    const { body } = translate({ messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true }, n: 2, seed: 7 }, true);
    expect(body.stream).toBe(true);
    expect(body).not.toHaveProperty("stream_options");
    expect(body).not.toHaveProperty("n");
    expect(body).not.toHaveProperty("seed");
    expect(translate({ messages: [] }).body).not.toHaveProperty("stream");
  });
});
