import { describe, expect, it } from "vitest";
import { createChatStreamAssembler } from "../../families/chat/stream-assembler.ts";
import type { ClientEvent, StreamEvent } from "../../streams/stream-protocol.ts";
import { chatStream } from "./chat-stream.ts";

const event = (type: string, data: Record<string, unknown>): StreamEvent => ({ event: type, data: JSON.stringify({ type, ...data }) });

/** A streamed answer with thinking, text and two tool calls, as the Messages API sends it (before `message_stop`). */
const EVENTS: StreamEvent[] = [
  event("message_start", { message: { id: "msg_9", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], usage: { input_tokens: 12, cache_read_input_tokens: 30, cache_creation_input_tokens: 8, output_tokens: 1 } } }),
  event("ping", {}),
  event("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
  event("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "Two cities." } }),
  event("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "sig" } }),
  event("content_block_stop", { index: 0 }),
  event("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
  event("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Checking " } }),
  event("content_block_delta", { index: 1, delta: { type: "text_delta", text: "both." } }),
  event("content_block_stop", { index: 1 }),
  event("content_block_start", { index: 2, content_block: { type: "tool_use", id: "toolu_a", name: "get_weather", input: {} } }),
  event("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: "" } }),
  event("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: '{"city":' } }),
  event("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: '"Paris"}' } }),
  event("content_block_stop", { index: 2 }),
  event("content_block_start", { index: 3, content_block: { type: "tool_use", id: "toolu_b", name: "get_weather", input: {} } }),
  event("content_block_delta", { index: 3, delta: { type: "input_json_delta", partial_json: '{"city":"Rome"}' } }),
  event("content_block_stop", { index: 3 }),
  event("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 57 } }),
];

function run(clientBody: Record<string, unknown>): ClientEvent[] {
  const translator = chatStream(clientBody);
  return [...EVENTS.flatMap((e) => translator.event(e)), ...(translator.end?.() ?? [])];
}

interface Chunk {
  id: string;
  object: string;
  model: string;
  choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: unknown;
}

const parsed = (events: ClientEvent[]): Chunk[] => events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data) as Chunk);

describe("anthropic chat stream", () => {
  it("emits role, reasoning, content and tool call chunks with the right indexes, a finish chunk, usage and [DONE]", () => {
    const events = run({ stream_options: { include_usage: true } });
    const chunks = parsed(events);
    expect(chunks.every((c) => c.id === "msg_9" && c.object === "chat.completion.chunk" && c.model === "claude-sonnet-4-5")).toBe(true);
    const deltas = chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0]!.delta);
    expect(deltas).toEqual([
      { role: "assistant", content: "" },
      { reasoning_content: "Two cities." },
      { content: "Checking " },
      { content: "both." },
      { tool_calls: [{ index: 0, id: "toolu_a", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: "toolu_b", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{"city":"Rome"}' } }] },
      {},
    ]);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => c.choices[0]!.finish_reason)).toEqual(["tool_calls"]);
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 50, completion_tokens: 57, total_tokens: 107, prompt_tokens_details: { cached_tokens: 30, cache_write_tokens: 8 } });
    expect(events.at(-2)?.to).toBe("both");
    expect(events.at(-1)).toEqual({ data: "[DONE]", to: "client" });
  });

  it("hands usage to the log only when the client did not ask, and the log assembles the whole answer", () => {
    const events = run({});
    expect(events.at(-2)?.to).toBe("log");
    const assembler = createChatStreamAssembler();
    for (const e of events) if (e.to !== "client") assembler.add(JSON.parse(e.data));
    const { completion, usage } = assembler.result();
    expect(usage).toMatchObject({ promptTokens: 50, completionTokens: 57, cachedTokens: 30, cacheWriteTokens: 8 });
    expect((completion.choices as unknown[])[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        content: "Checking both.",
        reasoning_content: "Two cities.",
        tool_calls: [
          { id: "toolu_a", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "toolu_b", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
    });
  });

  it("turns an error event into the gateway's error event with the envelope", () => {
    const translator = chatStream({});
    const [out] = translator.event({ event: "error", data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) });
    expect(out?.event).toBe("error");
    expect(JSON.parse(out!.data)).toEqual({ error: { message: "Overloaded", type: "overloaded_error", code: "overloaded_error", param: null } });
  });
});
