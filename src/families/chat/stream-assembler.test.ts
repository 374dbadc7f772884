import { describe, expect, it } from "vitest";
import { createChatStreamAssembler } from "./stream-assembler.ts";
import { normaliseUsage } from "../../operation/answer-reader.ts";

const base = { id: "chatcmpl-B9x", object: "chat.completion.chunk", created: 1_741_000_000, model: "gpt-4o-2024-08-06", service_tier: "default", system_fingerprint: "fp_a1b2c3" };

/** A stream as OpenAI sends it for two parallel tool calls, with include_usage. */
const PARALLEL_TOOL_CALLS = [
  { ...base, usage: null, choices: [{ index: 0, delta: { role: "assistant", content: null, refusal: null }, logprobs: null, finish_reason: null }] },
  {
    ...base,
    usage: null,
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, id: "call_paris", type: "function", function: { name: "get_weather", arguments: "" } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
  },
  { ...base, usage: null, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"loc' } }] }, logprobs: null, finish_reason: null }] },
  { ...base, usage: null, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ation": "Paris"}' } }] }, logprobs: null, finish_reason: null }] },
  {
    ...base,
    usage: null,
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 1, id: "call_tokyo", type: "function", function: { name: "get_weather", arguments: "" } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
  },
  { ...base, usage: null, choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"location"' } }] }, logprobs: null, finish_reason: null }] },
  { ...base, usage: null, choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: ': "Tokyo"}' } }] }, logprobs: null, finish_reason: null }] },
  { ...base, usage: null, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }] },
  {
    ...base,
    choices: [],
    usage: {
      prompt_tokens: 82,
      completion_tokens: 44,
      total_tokens: 126,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  },
];

describe("createChatStreamAssembler", () => {
  it("assembles two parallel tool calls into the non-streamed shape", () => {
    const assembler = createChatStreamAssembler();
    for (const chunk of PARALLEL_TOOL_CALLS) assembler.add(chunk);
    const { completion, usage } = assembler.result();
    expect(completion).toEqual({
      id: "chatcmpl-B9x",
      object: "chat.completion",
      created: 1_741_000_000,
      model: "gpt-4o-2024-08-06",
      system_fingerprint: "fp_a1b2c3",
      service_tier: "default",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            refusal: null,
            tool_calls: [
              { id: "call_paris", type: "function", function: { name: "get_weather", arguments: '{"location": "Paris"}' } },
              { id: "call_tokyo", type: "function", function: { name: "get_weather", arguments: '{"location": "Tokyo"}' } },
            ],
          },
          logprobs: null,
          finish_reason: "tool_calls",
        },
      ],
      usage: PARALLEL_TOOL_CALLS.at(-1)?.usage,
    });
    expect(usage).toEqual({ promptTokens: 82, completionTokens: 44, totalTokens: 126, cachedTokens: 64, reasoningTokens: 0 });
    const args = (completion.choices as { message: { tool_calls: { function: { arguments: string } }[] } }[])[0]?.message.tool_calls.map(
      (call) => JSON.parse(call.function.arguments) as unknown,
    );
    expect(args).toEqual([{ location: "Paris" }, { location: "Tokyo" }]);
  });

  it("keeps tool calls apart when their deltas interleave", () => {
    const assembler = createChatStreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "g", arguments: "[" } }] } }] });
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "{" } }] } }] });
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: "]" } }, { index: 0, function: { arguments: "}" } }] } }] });
    const message = (assembler.result().completion.choices as { message: Record<string, unknown> }[])[0]?.message;
    expect(message?.tool_calls).toEqual([
      { id: "a", type: "function", function: { name: "f", arguments: "{}" } },
      { id: "b", type: "function", function: { name: "g", arguments: "[]" } },
    ]);
  });

  it("merges tool calls without an index by id, as some OpenAI-compatible providers send them", () => {
    const assembler = createChatStreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ id: "x1", function: { name: "f", arguments: "{\"a\":" } }] } }] });
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ function: { arguments: "1}" } }] } }] });
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ id: "x2", function: { name: "g", arguments: "{}" } }] } }] });
    const message = (assembler.result().completion.choices as { message: Record<string, unknown> }[])[0]?.message;
    expect(message?.tool_calls).toEqual([
      { id: "x1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
      { id: "x2", type: "function", function: { name: "g", arguments: "{}" } },
    ]);
  });

  it("concatenates content, refusal, logprobs and reasoning per choice index, ordered by index", () => {
    const token = (t: string) => ({ token: t, logprob: -0.1, bytes: null, top_logprobs: [] });
    const assembler = createChatStreamAssembler();
    assembler.add({ id: "c1", created: 5, model: "m", choices: [{ index: 1, delta: { role: "assistant", content: "Bon" }, logprobs: { content: [token("Bon")], refusal: null }, finish_reason: null }] });
    assembler.add({ choices: [{ index: 0, delta: { role: "assistant", reasoning_content: "think", content: "" }, logprobs: null, finish_reason: null }] });
    assembler.add({ choices: [{ index: 0, delta: { content: "Hel" } }, { index: 1, delta: { content: "jour" }, logprobs: { content: [token("jour")], refusal: null } }] });
    assembler.add({ choices: [{ index: 0, delta: { content: "lo", reasoning_content: "ing" }, finish_reason: "stop" }, { index: 1, delta: {}, finish_reason: "length" }] });
    assembler.add({ choices: [{ index: 2, delta: { role: "assistant", refusal: "I can't" } }, { index: 2, delta: { refusal: " help." }, finish_reason: "stop" }] });
    const { completion, usage } = assembler.result();
    expect(usage).toBeNull();
    expect(completion).not.toHaveProperty("usage");
    expect(completion).not.toHaveProperty("service_tier");
    expect(completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "Hello", refusal: null, reasoning_content: "thinking" }, logprobs: null, finish_reason: "stop" },
      { index: 1, message: { role: "assistant", content: "Bonjour", refusal: null }, logprobs: { content: [token("Bon"), token("jour")], refusal: null }, finish_reason: "length" },
      { index: 2, message: { role: "assistant", content: null, refusal: "I can't help." }, logprobs: null, finish_reason: "stop" },
    ]);
  });

  it("assembles the legacy function_call", () => {
    const assembler = createChatStreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { role: "assistant", function_call: { name: "lookup", arguments: "" } } }] });
    assembler.add({ choices: [{ index: 0, delta: { function_call: { arguments: '{"q":' } } }] });
    assembler.add({ choices: [{ index: 0, delta: { function_call: { arguments: '"x"}' } }, finish_reason: "function_call" }] });
    expect(assembler.result().completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: null, refusal: null, function_call: { name: "lookup", arguments: '{"q":"x"}' } }, logprobs: null, finish_reason: "function_call" },
    ]);
  });

  it("ignores odd shapes without throwing", () => {
    const assembler = createChatStreamAssembler();
    for (const odd of [null, undefined, 42, "[DONE]", [], { choices: "no" }, { choices: [null, 3, { delta: "x" }] }, { error: { message: "boom" } }, { choices: [{ index: 0, delta: { tool_calls: [null, { function: null }] } }] }]) {
      expect(() => assembler.add(odd)).not.toThrow();
    }
    const { completion, usage } = assembler.result();
    expect(usage).toBeNull();
    expect(completion).toMatchObject({ id: "", object: "chat.completion", created: 0, model: "" });
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "", type: "function", function: { name: "", arguments: "" } }] },
        logprobs: null,
        finish_reason: null,
      },
    ]);
  });

  it("reads Groq's x_groq.usage when there is no usage field", () => {
    const assembler = createChatStreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }], x_groq: { id: "req_1", usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } } });
    expect(assembler.result().usage).toEqual({ promptTokens: 10, completionTokens: 2, totalTokens: 12, cachedTokens: 0, reasoningTokens: 0 });
  });

  it("returns independent snapshots from result()", () => {
    const assembler = createChatStreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { content: "a" }, logprobs: { content: [1], refusal: null } }] });
    const first = assembler.result().completion;
    assembler.add({ choices: [{ index: 0, delta: { content: "b" }, logprobs: { content: [2], refusal: null } }] });
    expect(first.choices).toEqual([{ index: 0, message: { role: "assistant", content: "a", refusal: null }, logprobs: { content: [1], refusal: null }, finish_reason: null }]);
    expect(assembler.result().completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "ab", refusal: null }, logprobs: { content: [1, 2], refusal: null }, finish_reason: null },
    ]);
  });
});

describe("normaliseUsage", () => {
  it("reads cached and reasoning tokens from the details", () => {
    expect(
      normaliseUsage({
        prompt_tokens: 1200,
        completion_tokens: 900,
        total_tokens: 2100,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 640 },
      }),
    ).toEqual({ promptTokens: 1200, completionTokens: 900, totalTokens: 2100, cachedTokens: 1024, reasoningTokens: 640 });
  });

  it("tolerates missing parts and fills the total", () => {
    expect(normaliseUsage({ prompt_tokens: 7, completion_tokens: 3 })).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10, cachedTokens: 0, reasoningTokens: 0 });
    expect(normaliseUsage({ completion_tokens: 3, prompt_tokens_details: null, completion_tokens_details: "x" })).toEqual({
      promptTokens: 0,
      completionTokens: 3,
      totalTokens: 3,
      cachedTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("uses DeepSeek's prompt_cache_hit_tokens when the details lack a cached count", () => {
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 })?.cachedTokens).toBe(64);
  });

  it("returns null for anything that is not a usage object, and ignores bad counts", () => {
    for (const raw of [null, undefined, 3, "usage", [], {}, { prompt_tokens: "7" }, { prompt_tokens: -1, completion_tokens: Number.NaN }]) {
      expect(normaliseUsage(raw)).toBeNull();
    }
    expect(normaliseUsage({ prompt_tokens: 5.9, completion_tokens: -2, total_tokens: Infinity })).toEqual({
      promptTokens: 5,
      completionTokens: 0,
      totalTokens: 5,
      cachedTokens: 0,
      reasoningTokens: 0,
    });
  });
});
