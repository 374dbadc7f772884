import { describe, expect, it } from "vitest";
import { anthropicProvider } from "../providers/anthropic/index.ts";
import { translateInput } from "./input-lines.ts";

const line = (customId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: "POST", url: "/v1/chat/completions", body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: customId }] }, ...extra });

describe("a batch input file read for a provider", () => {
  it("translates each line with the provider's chat transform, blank lines skipped", () => {
    const read = translateInput(`${line("a")}\n\n${line("b")}\n`, anthropicProvider);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.lines.map((entry) => entry.customId)).toEqual(["a", "b"]);
    // The Messages body: max_tokens filled in, content as blocks.
    expect(read.value.lines[0]!.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: expect.any(Number), messages: [{ role: "user", content: [{ type: "text", text: "a" }] }] });
    expect(read.value.clientBodies.get("b")).toEqual({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "b" }] });
  });

  it.each([
    ["a line that is not JSON", "{nope", "Line 1 of the input file: not a JSON object."],
    ["an array", "[1]", "Line 1 of the input file: not a JSON object."],
    ["a GET", line("a", { method: "GET" }), "Line 1 of the input file: method must be POST."],
    ["another operation", line("a", { url: "/v1/embeddings" }), "Line 1 of the input file: Anthropic batches run /v1/chat/completions only, not \"/v1/embeddings\"."],
    ["a streamed request", JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model: "m", stream: true, messages: [] } }), "Line 1 of the input file: a batch request cannot stream."],
    ["a body without model", JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { messages: [] } }), "Line 1 of the input file: body.model must name the provider's model."],
    ["no custom_id", JSON.stringify({ method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [] } }), "Line 1 of the input file: custom_id must be a non-empty string."],
    ["an empty file", "\n\n", "The input file holds no requests."],
  ])("refuses %s with a 400 naming the line", (_name, content, message) => {
    const read = translateInput(content, anthropicProvider);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error).toMatchObject({ status: 400, param: "input_file_id", message });
  });

  it("names the second of two lines with one custom_id", () => {
    const read = translateInput(`${line("a")}\n${line("a")}`, anthropicProvider);
    expect(!read.ok && read.error.message).toBe('Line 2 of the input file: custom_id "a" is used twice.');
  });
});
