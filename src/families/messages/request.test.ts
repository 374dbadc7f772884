import { describe, expect, it } from "vitest";
import { chatRequestFromMessages, reasoningEffort } from "./request.ts";

const base = { model: "claude-x", max_tokens: 100 };

function translated(body: Record<string, unknown>): Record<string, unknown> {
  const result = chatRequestFromMessages({ ...base, ...body });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe("Anthropic Messages request → chat completions request", () => {
  it("maps the scalar fields, drops top_k, and asks a stream for its usage", () => {
    expect(
      translated({
        messages: [{ role: "user", content: "hi" }],
        stop_sequences: ["END"],
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        metadata: { user_id: "u-1" },
        stream: true,
        service_tier: "auto",
      }),
    ).toEqual({
      model: "claude-x",
      messages: [{ role: "user", content: "hi" }],
      max_completion_tokens: 100,
      stop: ["END"],
      temperature: 0.2,
      top_p: 0.9,
      user: "u-1",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("puts the system prompt first, its blocks joined", () => {
    expect(translated({ system: [{ type: "text", text: "One." }, { type: "text", text: "Two.", cache_control: { type: "ephemeral" } }], messages: [{ role: "user", content: "hi" }] }).messages).toEqual([
      { role: "system", content: "One.\n\nTwo." },
      { role: "user", content: "hi" },
    ]);
  });

  it("turns tool_result blocks into tool messages before the rest of the user turn, images following", () => {
    const messages = translated({
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "text", text: "Checking." }, { type: "tool_use", id: "t1", name: "weather", input: { city: "Oslo" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "cold" }, { type: "image", source: { type: "url", url: "https://example.com/map.png" } }] },
            { type: "text", text: "and now?" },
          ],
        },
      ],
    }).messages;
    expect(messages).toEqual([
      { role: "user", content: "weather?" },
      { role: "assistant", content: "Checking.", tool_calls: [{ id: "t1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
      { role: "tool", tool_call_id: "t1", content: "cold" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/map.png" } }, { type: "text", text: "and now?" }] },
    ]);
  });

  it("sends a user turn of tool results alone as tool messages only", () => {
    expect(translated({ messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }] }).messages).toEqual([{ role: "tool", tool_call_id: "t1", content: "ok" }]);
  });

  it("maps tools and every tool_choice", () => {
    const tools = [{ name: "f", description: "does f", input_schema: { type: "object", properties: { a: { type: "string" } } } }];
    const messages = [{ role: "user", content: "x" }];
    expect(translated({ messages, tools }).tools).toEqual([{ type: "function", function: { name: "f", description: "does f", parameters: tools[0]!.input_schema } }]);
    expect(translated({ messages, tools, tool_choice: { type: "auto" } }).tool_choice).toBe("auto");
    expect(translated({ messages, tools, tool_choice: { type: "any" } }).tool_choice).toBe("required");
    expect(translated({ messages, tools, tool_choice: { type: "none" } }).tool_choice).toBe("none");
    expect(translated({ messages, tools, tool_choice: { type: "tool", name: "f", disable_parallel_tool_use: true } })).toMatchObject({
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
    });
  });

  it("maps thinking budgets to reasoning effort levels", () => {
    expect(translated({ messages: [{ role: "user", content: "x" }], thinking: { type: "enabled", budget_tokens: 10000 } }).reasoning_effort).toBe("medium");
    expect(reasoningEffort({ type: "enabled", budget_tokens: 1024 })).toBe("low");
    expect(reasoningEffort({ type: "enabled", budget_tokens: 32000 })).toBe("high");
    expect(reasoningEffort({ type: "disabled" })).toBeNull();
    expect(reasoningEffort({ type: "adaptive" })).toBeNull();
  });

  it("refuses what chat completions cannot carry, naming the field", () => {
    const document = chatRequestFromMessages({ ...base, messages: [{ role: "user", content: [{ type: "document", source: { type: "text", data: "x" } }] }] });
    expect(document.ok || document.error).toMatchObject({ status: 400, param: "messages.0.content.0.type" });
    const serverTool = chatRequestFromMessages({ ...base, messages: [{ role: "user", content: "x" }], tools: [{ type: "bash_20250124", name: "bash" }] });
    expect(serverTool.ok || serverTool.error).toMatchObject({ status: 400, param: "tools.0.type" });
    const fileImage = chatRequestFromMessages({ ...base, messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "f" } }] }] });
    expect(fileImage.ok || fileImage.error).toMatchObject({ status: 400, param: "messages.0.content.0.source.type" });
  });
});
