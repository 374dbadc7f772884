import { describe, expect, it } from "vitest";
import { answerReader, readAnswer } from "./log-record-builder.ts";
import { readUsage } from "../operation/answer-reader.ts";
import type { LoggedResponse } from "./log-entry.ts";

function jsonText(text: string | null, totalBytes = text?.length ?? 0): LoggedResponse {
  return { kind: "json-text", text, totalBytes, truncated: false, tail: null };
}

function stream(chunks: string[], maxBytes = 1024 * 1024): LoggedResponse {
  return { kind: "stream", chunks, totalBytes: chunks.join("").length, truncated: false, maxBytes };
}

describe("readUsage", () => {
  it("reads the embeddings' prompt and total tokens without completion tokens", () => {
    expect(readUsage({ prompt_tokens: 8, total_tokens: 8 })).toEqual({ promptTokens: 8, completionTokens: 0, totalTokens: 8, cachedTokens: 0, reasoningTokens: 0 });
  });

  it("reads the Responses API's input and output tokens with their details", () => {
    const usage = { input_tokens: 36, input_tokens_details: { cached_tokens: 6 }, output_tokens: 87, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 123 };
    expect(readUsage(usage)).toEqual({ promptTokens: 36, completionTokens: 87, totalTokens: 123, cachedTokens: 6, reasoningTokens: 12 });
  });

  it("finds nothing in what is not a usage object", () => {
    expect(readUsage(null)).toBeNull();
    expect(readUsage({ other: 1 })).toBeNull();
    expect(readUsage([1, 2])).toBeNull();
  });
});

describe("the json format", () => {
  it("reads an embeddings answer's usage and served model, keeping its text", () => {
    const text = JSON.stringify({ object: "list", data: [{ object: "embedding", index: 0, embedding: [0.1] }], model: "text-embedding-3-small", usage: { prompt_tokens: 5, total_tokens: 5 } });
    const read = readAnswer(jsonText(text), answerReader("json"));
    expect(read).toEqual({ body: text, usage: { promptTokens: 5, completionTokens: 0, totalTokens: 5, cachedTokens: 0, reasoningTokens: 0 }, servedModel: "text-embedding-3-small", totalBytes: text.length, truncated: false });
  });

  it("logs a stream as the array of its events' data, parsed when JSON, with the last usage and the model", () => {
    const events = [
      { type: "response.created", response: { id: "r", model: "gpt-4o-mini", usage: null } },
      { type: "response.output_text.delta", delta: "Hi" },
      { type: "response.completed", response: { id: "r", model: "gpt-4o-mini", usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } } },
    ];
    const chunks = [...events.map((event) => JSON.stringify(event)), "[DONE]"];
    const read = readAnswer(stream(chunks), answerReader("json"));
    expect(JSON.parse(read.body ?? "null")).toEqual([...events, "[DONE]"]);
    expect(read).toMatchObject({ usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 }, servedModel: "gpt-4o-mini", truncated: false });
  });

  it("takes a top-level usage object from a stream's event too, and cuts the array to the limit", () => {
    const chunks = [JSON.stringify({ model: "m", text: "x".repeat(3000) }), JSON.stringify({ usage: { prompt_tokens: 4, completion_tokens: 1 } })];
    const read = readAnswer(stream(chunks, 1000), answerReader("json"));
    expect(Buffer.byteLength(read.body ?? "")).toBeLessThanOrEqual(1000);
    expect(read).toMatchObject({ usage: { promptTokens: 4, completionTokens: 1, totalTokens: 5 }, servedModel: "m", truncated: true });
  });

  it("keeps only the size of an answer that is not text (binary, e.g. audio)", () => {
    expect(readAnswer(jsonText(null, 48_000), answerReader("json"))).toEqual({ body: null, usage: null, servedModel: null, totalBytes: 48_000, truncated: false });
    expect(readAnswer(jsonText(null, 48_000), answerReader("chat")).body).toBeNull();
  });
});

describe("the chat format", () => {
  it("assembles a stream into one completion, as before", () => {
    const chunk = (delta: object) => JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: null }] });
    const read = readAnswer(stream([chunk({ role: "assistant", content: "a" }), chunk({ content: "b" })]), answerReader("chat"));
    expect(JSON.parse(read.body ?? "null").choices[0].message.content).toBe("ab");
    expect(read.servedModel).toBe("gpt-4o-mini");
  });

  it("does not assemble the events of another operation: the json format keeps them", () => {
    const chunks = [JSON.stringify({ type: "response.output_text.delta", delta: "Hi" })];
    expect(JSON.parse(readAnswer(stream(chunks), answerReader("chat")).body ?? "null").object).toBe("chat.completion");
    expect(JSON.parse(readAnswer(stream(chunks), answerReader("json")).body ?? "null")).toEqual([{ type: "response.output_text.delta", delta: "Hi" }]);
  });
});

describe("the responses format", () => {
  const usage = { input_tokens: 36, input_tokens_details: { cached_tokens: 6 }, output_tokens: 87, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 123 };
  const final = { id: "resp_1", object: "response", status: "completed", model: "gpt-4o-mini-2024-07-18", output: [{ type: "message", content: [{ type: "output_text", text: "Hi" }] }], usage };
  const counted = { promptTokens: 36, completionTokens: 87, totalTokens: 123, cachedTokens: 6, reasoningTokens: 12 };
  const events = [
    { type: "response.created", sequence_number: 0, response: { ...final, status: "in_progress", output: [], usage: null } },
    { type: "response.output_text.delta", sequence_number: 1, delta: "Hi" },
    { type: "response.completed", sequence_number: 2, response: final },
  ];

  it("keeps a non-streamed answer as it is, with usage from input and output tokens and the served model", () => {
    const text = JSON.stringify(final);
    expect(readAnswer(jsonText(text), answerReader("responses"))).toEqual({ body: text, usage: counted, servedModel: "gpt-4o-mini-2024-07-18", totalBytes: text.length, truncated: false });
  });

  it("logs a stream as the final response object of its response.completed event, with its usage", () => {
    const read = readAnswer(stream(events.map((event) => JSON.stringify(event))), answerReader("responses"));
    expect(JSON.parse(read.body ?? "null")).toEqual(final);
    expect(read).toMatchObject({ usage: counted, servedModel: "gpt-4o-mini-2024-07-18", truncated: false });
  });

  it("takes the response of a failed or incomplete stream too", () => {
    const failed = { ...final, status: "failed", error: { code: "server_error", message: "boom" } };
    const read = readAnswer(stream([JSON.stringify(events[0]), JSON.stringify({ type: "response.failed", response: failed })]), answerReader("responses"));
    expect(JSON.parse(read.body ?? "null")).toEqual(failed);
    const incomplete = { ...final, status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
    expect(JSON.parse(readAnswer(stream([JSON.stringify({ type: "response.incomplete", response: incomplete })]), answerReader("responses")).body ?? "null").status).toBe("incomplete");
  });

  it("keeps a cut stream's events, as the json format does", () => {
    const chunks = events.slice(0, 2).map((event) => JSON.stringify(event));
    const read = readAnswer(stream(chunks), answerReader("responses"));
    expect(JSON.parse(read.body ?? "null")).toEqual(events.slice(0, 2));
    expect(read).toMatchObject({ usage: null, servedModel: "gpt-4o-mini-2024-07-18" });
  });

  it("the stored format keeps an answer about earlier work without counting its usage", () => {
    const text = JSON.stringify(final);
    expect(readAnswer(jsonText(text), answerReader("stored"))).toMatchObject({ body: text, usage: null, servedModel: "gpt-4o-mini-2024-07-18" });
    const read = readAnswer(stream(events.map((event) => JSON.stringify(event))), answerReader("stored"));
    expect(JSON.parse(read.body ?? "null")).toEqual(final);
    expect(read.usage).toBeNull();
  });
});

describe("the messages format (Anthropic Messages answers)", () => {
  it("counts cache reads as prompt tokens, as chat does", () => {
    const text = JSON.stringify({ id: "m", type: "message", model: "gpt-4o-mini", content: [], usage: { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 10, cache_creation_input_tokens: null } });
    expect(readAnswer(jsonText(text), answerReader("messages"))).toMatchObject({ body: text, usage: { promptTokens: 30, completionTokens: 7, totalTokens: 37, cachedTokens: 10 }, servedModel: "gpt-4o-mini" });
  });

  it("logs a stream as its assembled message, usage from message_delta", () => {
    const events = [
      { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "gpt-4o-mini", content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 0 } },
      { type: "message_stop" },
    ];
    const read = readAnswer(stream(events.map((event) => JSON.stringify(event))), answerReader("messages"));
    expect(JSON.parse(read.body ?? "null")).toMatchObject({ type: "message", content: [{ type: "text", text: "Hi" }], stop_reason: "end_turn", usage: { input_tokens: 5, output_tokens: 1 } });
    expect(read).toMatchObject({ usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6 }, servedModel: "gpt-4o-mini" });
  });
});

describe("readUsage from an upstream that overstates", () => {
  it("caps every count at what the store's integer columns hold", () => {
    expect(readUsage({ prompt_tokens: 3_000_000_000, completion_tokens: 2_000_000_000 })).toEqual({
      promptTokens: 2_147_483_647,
      completionTokens: 2_000_000_000,
      totalTokens: 2_147_483_647,
      cachedTokens: 0,
      reasoningTokens: 0,
    });
  });
});
