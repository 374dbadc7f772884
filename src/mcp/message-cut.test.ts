import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageCutStream, type MessageCutLimits } from "./message-cut.ts";

const LIMITS: MessageCutLimits = { maxStringBytes: 16, maxMessageBytes: 1 << 20, maxReadBytes: 1 << 24 };

/** The text through the cutter, in chunks of the given sizes; what came out, the bytes dropped, the overflow. */
async function cut(text: string, sizes: number[] = [], limits = LIMITS, eventStream = false): Promise<{ out: string; dropped: number; overflow: Error | null }> {
  const bytes = new TextEncoder().encode(text);
  let dropped = 0;
  let overflow: Error | null = null;
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      let at = 0;
      for (let index = 0; at < bytes.length; index++) {
        const size = Math.max(1, sizes[index % Math.max(1, sizes.length)] ?? bytes.length);
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      }
      controller.close();
    },
  });
  const stream = source.pipeThrough(messageCutStream(limits, eventStream, { onCut: (count) => (dropped += count), onOverflow: (error) => (overflow = error) }));
  const out = await new Response(stream).text().catch(() => "");
  return { out, dropped, overflow };
}

/** The strings of a JSON value, keys included, in order. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, member]) => [key, ...strings(member)]);
  return [];
}

describe("an MCP answer cut as it is read", () => {
  it("keeps any JSON valid, each string a prefix of its own of at most the limit (whole characters), and counts every byte dropped", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: "binary" })), fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 5 }), async (value, sizes) => {
        const text = JSON.stringify(value);
        const { out, dropped } = await cut(text, sizes);
        const parsed: unknown = JSON.parse(out);
        const before = strings(value);
        const after = strings(parsed);
        expect(after).toHaveLength(before.length);
        let lost = 0;
        after.forEach((kept, index) => {
          const original = before[index]!;
          expect(original.startsWith(kept)).toBe(true);
          expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(LIMITS.maxStringBytes + 3);
          if (Buffer.byteLength(original) <= LIMITS.maxStringBytes) expect(kept).toBe(original);
          lost += Buffer.byteLength(original) - Buffer.byteLength(kept);
        });
        // Lone surrogates count as two bytes here and three in UTF-8: the count is exact for real text.
        if (!/[\uD800-\uDFFF]/.test(text)) expect(dropped).toBe(lost);
      }),
      { numRuns: 300 },
    );
  });

  it("cuts a long string at the limit and passes the rest of the message on", async () => {
    const { out, dropped } = await cut(JSON.stringify({ text: "x".repeat(1000), after: 1 }), [7]);
    expect(JSON.parse(out)).toEqual({ text: "x".repeat(16), after: 1 });
    expect(dropped).toBe(984);
  });

  it("fails a message past its bound, and one read past its read bound, with errors naming them", async () => {
    const limits = { maxStringBytes: 16, maxMessageBytes: 100, maxReadBytes: 10_000 };
    const many = await cut(JSON.stringify(Array.from({ length: 50 }, () => "short")), [], limits);
    expect(many.overflow?.message).toContain("more than 100 bytes");
    const long = await cut(JSON.stringify("y".repeat(20_000)), [], limits);
    expect(long.overflow?.message).toContain("ran past 10000 bytes");
  });

  it("bounds each event of an event stream on its own", async () => {
    const limits = { maxStringBytes: 16, maxMessageBytes: 100, maxReadBytes: 10_000 };
    const event = `event: message\ndata: ${JSON.stringify({ id: 1, text: "z".repeat(500) })}\n\n`;
    const fine = await cut(event.repeat(20), [33], limits, true);
    expect(fine.overflow).toBeNull();
    expect(fine.out.split("\n\n").filter(Boolean).map((part) => JSON.parse(part.split("data: ")[1]!))).toEqual(Array.from({ length: 20 }, () => ({ id: 1, text: "z".repeat(16) })));
    const big = await cut(`data: ${JSON.stringify(Array.from({ length: 50 }, () => "short"))}\n\n`, [], limits, true);
    expect(big.overflow).not.toBeNull();
  });
});
