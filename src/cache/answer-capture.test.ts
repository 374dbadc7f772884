import { describe, expect, it } from "vitest";
import { cacheableEvents, captureBody } from "./answer-capture.ts";

const encoder = new TextEncoder();
const streamOf = (parts: string[]): ReadableStream<Uint8Array> =>
  new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });

describe("captureBody", () => {
  it("relays the body unchanged and hands over the whole text once it ends", async () => {
    let kept: string | null = null;
    const relayed = await new Response(captureBody(streamOf(["ab", "cé"]), 100, (text) => (kept = text), () => undefined)).text();
    expect(relayed).toBe("abcé");
    expect(kept).toBe("abcé");
  });

  it("keeps nothing of a body past the limit, yet relays all of it", async () => {
    let dropped = false;
    let kept: string | null = null;
    const relayed = await new Response(captureBody(streamOf(["12345", "67890"]), 6, (text) => (kept = text), () => (dropped = true))).text();
    expect(relayed).toBe("1234567890");
    expect(kept).toBeNull();
    expect(dropped).toBe(true);
  });

  it("keeps nothing when the client cancels", async () => {
    let dropped = false;
    const source = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(encoder.encode("x")) });
    const captured = captureBody(source, 100, () => undefined, () => (dropped = true));
    const reader = captured.getReader();
    await reader.read();
    await reader.cancel();
    expect(dropped).toBe(true);
  });
});

describe("cacheableEvents", () => {
  it("splits a clean stream into its events", () => {
    expect(cacheableEvents('data: {"a":1}\n\ndata: [DONE]\n\n')).toEqual(['data: {"a":1}\n\n', "data: [DONE]\n\n"]);
  });

  it("refuses a stream that carries an error in any form", () => {
    expect(cacheableEvents('data: {"a":1}\n\nevent: error\ndata: {"error":{}}\n\n')).toBeNull();
    expect(cacheableEvents('data: {"error":{"message":"boom"}}\n\n')).toBeNull();
    expect(cacheableEvents('event: response.failed\ndata: {"type":"response.failed"}\n\n')).toBeNull();
    expect(cacheableEvents('event: response.completed\ndata: {"response":{"error":null}}\n\n')).not.toBeNull();
  });
});
