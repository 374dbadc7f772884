import { describe, expect, it } from "vitest";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { StreamEvent } from "../../streams/stream-protocol.ts";
import { awsEventStreamProtocol, createAwsEventStreamDecoder } from "./event-stream.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(headers: Record<string, string>, payload: string): Uint8Array {
  return codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: "string" as const, value }])),
    body: fromUtf8(payload),
  });
}

const event = (type: string, payload: object) => frame({ ":message-type": "event", ":event-type": type, ":content-type": "application/json" }, JSON.stringify(payload));

const FRAMES = [
  event("messageStart", { role: "assistant" }),
  event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Grüße, 世界 🌍" } }),
  event("messageStop", { stopReason: "end_turn" }),
  event("metadata", { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }),
];
const EXPECTED: StreamEvent[] = [
  { event: "messageStart", data: '{"role":"assistant"}' },
  { event: "contentBlockDelta", data: '{"contentBlockIndex":0,"delta":{"text":"Grüße, 世界 🌍"}}' },
  { event: "messageStop", data: '{"stopReason":"end_turn"}' },
  { event: "metadata", data: '{"usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5}}' },
];

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

describe("the AWS event-stream decoder", () => {
  const bytes = concat(FRAMES);

  it("decodes the same events wherever the bytes are split (every boundary, in two)", () => {
    for (let cut = 0; cut <= bytes.byteLength; cut++) {
      const decoder = createAwsEventStreamDecoder();
      const events = [...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut)), ...decoder.flush()];
      expect(events, `cut at ${cut}`).toEqual(EXPECTED);
    }
  });

  it("decodes the same events fed one byte at a time", () => {
    const decoder = createAwsEventStreamDecoder();
    const events: StreamEvent[] = [];
    for (let index = 0; index < bytes.byteLength; index++) events.push(...decoder.push(bytes.subarray(index, index + 1)));
    expect([...events, ...decoder.flush()]).toEqual(EXPECTED);
  });

  it("names exceptions by their type, and the protocol counts them as errors; metadata is the last event", () => {
    const decoder = createAwsEventStreamDecoder();
    const [exception] = decoder.push(frame({ ":message-type": "exception", ":exception-type": "throttlingException" }, '{"message":"slow down"}'));
    expect(exception).toEqual({ event: "throttlingException", data: '{"message":"slow down"}' });
    expect(awsEventStreamProtocol.isError(exception!)).toBe(true);
    expect(awsEventStreamProtocol.isError(EXPECTED[1]!)).toBe(false);
    expect(awsEventStreamProtocol.isLast?.(EXPECTED[3]!)).toBe(true);
    expect(awsEventStreamProtocol.isEnd(EXPECTED[3]!)).toBe(false);
    const [error] = decoder.push(frame({ ":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom" }, ""));
    expect(error).toEqual({ event: "error", data: '{"code":"InternalFailure","message":"boom"}' });
  });

  it("reports a corrupt frame once as an error and ignores the rest, never throwing", () => {
    const corrupt = bytes.slice();
    corrupt[20] = corrupt[20]! ^ 0xff;
    const decoder = createAwsEventStreamDecoder();
    const events = decoder.push(corrupt);
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toBe("error");
    expect(JSON.parse(events[0]!.data)).toMatchObject({ code: "InvalidFrame" });
    expect(decoder.push(bytes)).toEqual([]);
    expect(decoder.flush()).toEqual([]);
  });

  it("reports bytes left inside a frame at the end of the stream", () => {
    const decoder = createAwsEventStreamDecoder();
    expect(decoder.push(bytes.subarray(0, bytes.byteLength - 3))).toEqual(EXPECTED.slice(0, 3));
    const [left] = decoder.flush();
    expect(left?.event).toBe("error");
  });
});
