import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import type { ClientEvent } from "../../streams/stream-protocol.ts";
import { assembleMessage } from "./assemble.ts";
import { createMessagesStreamTranslator } from "./stream.ts";

const chunk = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ id: "chatcmpl-9", object: "chat.completion.chunk", model: "gpt-4o-mini", choices: choice ? [{ index: 0, ...choice }] : [], ...extra });

/** The translator's events for a chat stream, then its closing ones. */
function translate(chunks: string[]): ClientEvent[] {
  const translator = createMessagesStreamTranslator();
  return [...chunks.flatMap((data) => translator.event({ event: null, data })), ...translator.end!()];
}

const parsed = (events: ClientEvent[]): Record<string, unknown>[] => events.map((event) => JSON.parse(event.data) as Record<string, unknown>);

describe("chat chunks → Anthropic stream events", () => {
  it("streams text with every lifecycle event, typed in both the event line and the data", () => {
    const events = translate([
      chunk({ delta: { role: "assistant", content: "" }, finish_reason: null }),
      chunk({ delta: { content: "Hel" }, finish_reason: null }),
      chunk({ delta: { content: "lo" }, finish_reason: null }),
      chunk({ delta: {}, finish_reason: "stop" }),
      chunk(null, { usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } }),
      "[DONE]",
    ]);
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const data = parsed(events);
    expect(data.map((event) => event.type)).toEqual(events.map((event) => event.event));
    expect(data[0]).toMatchObject({ message: { id: "chatcmpl-9", type: "message", role: "assistant", model: "gpt-4o-mini", content: [], usage: { input_tokens: 0, output_tokens: 0 } } });
    expect(data[1]).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(data[2]).toEqual({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } });
    expect(data[5]).toEqual({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { input_tokens: 9, output_tokens: 2, cache_read_input_tokens: 0 } });
    expect(assembleMessage(data)).toMatchObject({ content: [{ type: "text", text: "Hello" }], stop_reason: "end_turn", usage: { input_tokens: 9, output_tokens: 2 } });
  });

  it("streams reasoning, then text, then two tool calls as separate blocks", () => {
    const events = translate([
      chunk({ delta: { reasoning_content: "Think" }, finish_reason: null }),
      chunk({ delta: { reasoning_content: "ing." }, finish_reason: null }),
      chunk({ delta: { content: "Calling." }, finish_reason: null }),
      chunk({ delta: { tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "f", arguments: "" } }] }, finish_reason: null }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }, finish_reason: null }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: "1}" } }] }, finish_reason: null }),
      chunk({ delta: { tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "g", arguments: "{}" } }] }, finish_reason: null }),
      chunk({ delta: {}, finish_reason: "tool_calls" }),
    ]);
    const data = parsed(events);
    const starts = data.filter((event) => event.type === "content_block_start").map((event) => [event.index, (event.content_block as { type: string }).type]);
    expect(starts).toEqual([
      [0, "thinking"],
      [1, "text"],
      [2, "tool_use"],
      [3, "tool_use"],
    ]);
    expect(data.filter((event) => event.type === "content_block_stop").map((event) => event.index)).toEqual([0, 1, 2, 3]);
    expect(data).toContainEqual({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Think" } });
    expect(data).toContainEqual({ type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"x":' } });
    expect(assembleMessage(data)).toMatchObject({
      content: [
        { type: "thinking", thinking: "Thinking." },
        { type: "text", text: "Calling." },
        { type: "tool_use", id: "call_a", name: "f", input: { x: 1 } },
        { type: "tool_use", id: "call_b", name: "g", input: {} },
      ],
      stop_reason: "tool_use",
    });
  });

  it("maps length to max_tokens and a refusal delta to stop_reason refusal", () => {
    const cut = parsed(translate([chunk({ delta: { content: "a" }, finish_reason: "length" })]));
    expect(cut.find((event) => event.type === "message_delta")).toMatchObject({ delta: { stop_reason: "max_tokens" } });
    const refused = parsed(translate([chunk({ delta: { refusal: "No." }, finish_reason: "stop" })]));
    expect(assembleMessage(refused)).toMatchObject({ content: [{ type: "text", text: "No." }], stop_reason: "refusal" });
  });

  it("still opens and closes a message for a stream without chunks", () => {
    expect(translate([]).map((event) => event.event)).toEqual(["message_start", "message_delta", "message_stop"]);
  });

  it("turns upstream and gateway errors into Anthropic error events", () => {
    const translator = createMessagesStreamTranslator();
    const [upstream] = translator.event({ event: null, data: JSON.stringify({ error: { message: "Overloaded", type: "server_error" } }) });
    expect(upstream).toEqual({ event: "error", data: JSON.stringify({ type: "error", error: { type: "api_error", message: "Overloaded" } }) });
    const [timeout] = translator.error!(new GatewayError("request_timeout", "The upstream did not answer in time."));
    expect(JSON.parse(timeout!.data)).toEqual({ type: "error", error: { type: "timeout_error", message: "The upstream did not answer in time." } });
  });
});
