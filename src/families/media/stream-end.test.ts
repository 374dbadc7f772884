import { describe, expect, it } from "vitest";
import { streamEndsAt } from "./stream-end.ts";

describe("streamEndsAt", () => {
  const isEnd = streamEndsAt("image_generation.completed");

  it("ends at the named event, by its event line or by its data's type", () => {
    expect(isEnd({ event: "image_generation.completed", data: "{}" })).toBe(true);
    expect(isEnd({ event: null, data: JSON.stringify({ type: "image_generation.completed", b64_json: "x" }) })).toBe(true);
  });

  it("does not end at other events, at a type named only inside the data, or at data that is not JSON", () => {
    expect(isEnd({ event: "image_generation.partial_image", data: JSON.stringify({ type: "image_generation.completed" }) })).toBe(false);
    expect(isEnd({ event: null, data: JSON.stringify({ type: "image_generation.partial_image", note: "image_generation.completed" }) })).toBe(false);
    expect(isEnd({ event: null, data: '"image_generation.completed" {' })).toBe(false);
    expect(isEnd({ event: null, data: "[DONE]" })).toBe(false);
  });
});
