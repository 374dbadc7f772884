import { describe, expect, it } from "vitest";
import { MAX_FIELD_BYTES, multipartBoundary, MultipartSniffer } from "./multipart-fields.ts";

const boundary = "----form-7d1a";
const file = new Uint8Array(3000).map((_, i) => (i * 31) % 256);
const body = Buffer.concat([
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n`),
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="talk \\"one\\".mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`),
  file,
  Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nline one\r\nline two\r\n--${boundary}--\r\n`),
]);
const expected = {
  fields: { model: "whisper-1", prompt: "line one\r\nline two" },
  files: [{ field: "file", filename: 'talk "one".mp3', content_type: "audio/mpeg" }],
};

describe("MultipartSniffer", () => {
  it("reads fields and file names in one chunk", () => {
    const sniffer = new MultipartSniffer(boundary);
    sniffer.push(body);
    expect(sniffer.summary()).toEqual(expected);
  });

  it("reads the same whatever the chunking, a delimiter split included", () => {
    for (const size of [1, 2, 7, 13, 64, 1000]) {
      const sniffer = new MultipartSniffer(boundary);
      for (let at = 0; at < body.byteLength; at += size) sniffer.push(body.subarray(at, at + size));
      expect(sniffer.summary(), `chunks of ${size}`).toEqual(expected);
    }
  });

  it("reads the same when chunks of any size cut the body anywhere", () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 200; round += 1) {
      const sniffer = new MultipartSniffer(boundary);
      for (let at = 0; at < body.byteLength; ) {
        const size = 1 + (next() % 80);
        sniffer.push(body.subarray(at, at + size));
        at += size;
      }
      expect(sniffer.summary(), `round ${round}`).toEqual(expected);
    }
  });

  it("keeps a field named __proto__ as a field", () => {
    const form = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nx\r\n--${boundary}--\r\n`);
    const sniffer = new MultipartSniffer(boundary);
    sniffer.push(form);
    expect(JSON.parse(JSON.stringify(sniffer.summary().fields))).toEqual(JSON.parse('{"__proto__":"x"}'));
  });

  it("keeps only the first bytes of a long field, and no file bytes", () => {
    const long = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${"p".repeat(MAX_FIELD_BYTES * 3)}\r\n--${boundary}--`);
    const sniffer = new MultipartSniffer(boundary);
    sniffer.push(long);
    expect(sniffer.summary().fields.prompt).toBe("p".repeat(MAX_FIELD_BYTES));
  });

  it("never keeps the bytes of a part that is not a plain text field, and masks fields named like secrets", () => {
    const part = (headers: string, content: string) => `--${boundary}\r\n${headers}\r\n\r\n${content}\r\n`;
    const form = Buffer.from(
      part(`Content-Disposition: form-data; name="a"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`, "FILE-BYTES-1") +
        part(`Content-Disposition: form-data; name="b"\r\nContent-Type: application/octet-stream`, "FILE-BYTES-2") +
        part(`Content-Disposition: form-data; name="c"\r\nContent-Type: multipart/mixed; boundary=inner`, "--inner\r\n\r\nFILE-BYTES-3\r\n--inner--") +
        part(`Content-Disposition: form-data; name="api_key"`, "sk-form-secret") +
        part(`Content-Disposition: form-data; name="language"\r\nContent-Type: text/plain; charset=utf-8`, "en") +
        `--${boundary}--\r\n`,
    );
    const sniffer = new MultipartSniffer(boundary);
    sniffer.push(form);
    const summary = sniffer.summary();
    expect(JSON.stringify(summary)).not.toMatch(/FILE-BYTES|sk-form-secret/);
    expect(summary.fields).toEqual({ api_key: "********", language: "en" });
    expect(summary.files.map((entry) => entry.field)).toEqual(["a", "b", "c"]);
    expect(summary.files[0]!.filename).toBe("UTF-8''r%C3%A9sum%C3%A9.pdf");
  });

  it("reads the boundary of a multipart content type only", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${boundary}`)).toBe(boundary);
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe("a b");
    expect(multipartBoundary("application/octet-stream")).toBeNull();
    expect(multipartBoundary(null)).toBeNull();
  });
});
