import { describe, expect, it } from "vitest";
import { BodyCapture, capText } from "./body-capture.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("BodyCapture", () => {
  it("keeps a body within the limit whole", () => {
    const capture = new BodyCapture(100);
    capture.add(bytes("{\"a\":"));
    capture.add(bytes("1}"));
    expect(capture.result()).toEqual({ head: "{\"a\":1}", tail: null, totalBytes: 7, truncated: false });
  });

  it("keeps the first and last bytes of a larger body, and its full size", () => {
    const capture = new BodyCapture(10, 8);
    for (let i = 0; i < 1000; i++) capture.add(bytes(String(i % 10).repeat(7)));
    const result = capture.result();
    expect(result).toMatchObject({ head: "0000000111", totalBytes: 7000, truncated: true });
    expect(result.tail).toBe("89999999");
  });

  it("never ends the head in half a character", () => {
    const capture = new BodyCapture(4);
    capture.add(bytes("aaé€"));
    expect(capture.result().head).toBe("aaé");
  });
});

describe("capText", () => {
  it("cuts at a character boundary within the byte limit and reports the full size", () => {
    expect(capText("héllo", 3)).toEqual({ text: "hé", totalBytes: 6, truncated: true });
    expect(capText("hello", 5)).toEqual({ text: "hello", totalBytes: 5, truncated: false });
  });
});
