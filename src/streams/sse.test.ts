import { describe, expect, it } from "vitest";
import { createSseParser, formatSseEvent, type SseEvent } from "./sse.ts";

function parseWhole(text: string): SseEvent[] {
  const parser = createSseParser();
  return [...parser.push(text), ...parser.flush()];
}

function parseInPieces(pieces: string[]): SseEvent[] {
  const parser = createSseParser();
  const events: SseEvent[] = [];
  for (const piece of pieces) events.push(...parser.push(piece));
  events.push(...parser.flush());
  return events;
}

const SAMPLE_LF = [
  "\uFEFF: keep-alive comment",
  "retry: 3000",
  "id: 1",
  'data: {"a":1}',
  "",
  "event: delta",
  "data:first",
  "data:  second with leading space kept",
  "data",
  "",
  ":another comment",
  "",
  "id: 2",
  "event: error",
  'data: {"error":{"message":"x"}}',
  "unknown: field",
  "",
  "data: [DONE]",
  "",
  "",
].join("\n");

const EXPECTED: SseEvent[] = [
  { event: null, data: '{"a":1}', id: "1" },
  { event: "delta", data: "first\n second with leading space kept\n", id: "1" },
  { event: "error", data: '{"error":{"message":"x"}}', id: "2" },
  { event: null, data: "[DONE]", id: "2" },
];

describe("createSseParser", () => {
  it("parses a whole stream per the WHATWG rules", () => {
    expect(parseWhole(SAMPLE_LF)).toEqual(EXPECTED);
  });

  for (const [name, eol] of [
    ["\\n", "\n"],
    ["\\r\\n", "\r\n"],
    ["\\r", "\r"],
  ] as const) {
    const sample = SAMPLE_LF.replaceAll("\n", eol);

    it(`gives the same events for a split at every position (${name} line ends)`, () => {
      for (let at = 0; at <= sample.length; at += 1) {
        expect(parseInPieces([sample.slice(0, at), sample.slice(at)]), `split at ${at}`).toEqual(EXPECTED);
      }
    });

    it(`gives the same events fed one character at a time (${name} line ends)`, () => {
      expect(parseInPieces([...sample])).toEqual(EXPECTED);
    });
  }

  it("gives the same events for every split of a UTF-8 byte stream decoded incrementally", () => {
    const sample = 'data: {"text":"héllo 👋 世界"}\r\n\r\ndata: [DONE]\r\n\r\n';
    const bytes = new TextEncoder().encode(sample);
    const expected: SseEvent[] = [
      { event: null, data: '{"text":"héllo 👋 世界"}', id: null },
      { event: null, data: "[DONE]", id: null },
    ];
    for (let at = 0; at <= bytes.length; at += 1) {
      const decoder = new TextDecoder();
      const parser = createSseParser();
      const events = [
        ...parser.push(decoder.decode(bytes.subarray(0, at), { stream: true })),
        ...parser.push(decoder.decode(bytes.subarray(at), { stream: true })),
        ...parser.push(decoder.decode()),
        ...parser.flush(),
      ];
      expect(events, `split at byte ${at}`).toEqual(expected);
    }
  });

  it("treats a CR at the end of one push and an LF at the start of the next as one line end", () => {
    const parser = createSseParser();
    expect(parser.push("data: a\r")).toEqual([]);
    expect(parser.push("\n")).toEqual([]);
    expect(parser.push("\r")).toEqual([{ event: null, data: "a", id: null }]);
    expect(parser.push("\ndata: b\n\n")).toEqual([{ event: null, data: "b", id: null }]);
  });

  it("does not dispatch an event that has no data, and resets its type", () => {
    expect(parseWhole("event: ping\n\ndata: x\n\n")).toEqual([{ event: null, data: "x", id: null }]);
  });

  it("dispatches an empty data line as an empty string", () => {
    expect(parseWhole("data\n\ndata:\n\n")).toEqual([
      { event: null, data: "", id: null },
      { event: null, data: "", id: null },
    ]);
  });

  it("removes only one space after the colon and keeps field names case-sensitive", () => {
    expect(parseWhole("data:   x  \nDATA: ignored\nEvent: ignored\n\n")).toEqual([{ event: null, data: "  x  ", id: null }]);
  });

  it("ignores an id containing NUL and keeps the last good one; an empty id clears it", () => {
    expect(parseWhole("id: 7\ndata: a\n\nid: 8\0\ndata: b\n\nid\ndata: c\n\n")).toEqual([
      { event: null, data: "a", id: "7" },
      { event: null, data: "b", id: "7" },
      { event: null, data: "c", id: "" },
    ]);
  });

  it("strips a BOM only at the very start of the stream", () => {
    const parser = createSseParser();
    expect(parser.push("")).toEqual([]);
    expect(parser.push("\uFEFFdata: a\n\n")).toEqual([{ event: null, data: "a", id: null }]);
    expect(parser.push("\uFEFFdata: b\n\ndata: c\n\n")).toEqual([{ event: null, data: "c", id: null }]);
  });

  it("flush dispatches an event whose final blank line never came, then resets", () => {
    const parser = createSseParser();
    expect(parser.push("id: 3\ndata: [DONE]")).toEqual([]);
    expect(parser.flush()).toEqual([{ event: null, data: "[DONE]", id: "3" }]);
    expect(parser.flush()).toEqual([]);
    expect(parser.push("data: again\n\n")).toEqual([{ event: null, data: "again", id: null }]);
  });

  it("flush returns nothing for a stream that ended cleanly or on a comment", () => {
    const parser = createSseParser();
    parser.push("data: a\n\n: trailing comment");
    expect(parser.flush()).toEqual([]);
  });
});

describe("formatSseEvent", () => {
  it("writes data alone, or with an event line", () => {
    expect(formatSseEvent({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
    expect(formatSseEvent({ event: "error", data: "x" })).toBe("event: error\ndata: x\n\n");
    expect(formatSseEvent({ event: "", data: "x" })).toBe("data: x\n\n");
  });

  it("splits multi-line data into several data lines", () => {
    expect(formatSseEvent({ data: "a\nb\r\nc\rd" })).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
  });

  it("removes line breaks from the event name", () => {
    expect(formatSseEvent({ event: "bad\r\ndata: injected", data: "x" })).toBe("event: baddata: injected\ndata: x\n\n");
  });

  it("round-trips through the parser", () => {
    const messages = [
      { event: "delta", data: "line one\nline two" },
      { data: "" },
      { data: " leading space" },
      { data: "trailing newline\n" },
    ];
    const wire = messages.map(formatSseEvent).join("");
    expect(parseWhole(wire)).toEqual([
      { event: "delta", data: "line one\nline two", id: null },
      { event: null, data: "", id: null },
      { event: null, data: " leading space", id: null },
      { event: null, data: "trailing newline\n", id: null },
    ]);
  });
});
