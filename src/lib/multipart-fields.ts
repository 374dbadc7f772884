/**
 * Reads what the log wants of a multipart/form-data upload (its small text fields and its files'
 * names and types) as the bytes stream past, without holding a file: only a field's first bytes
 * and a delimiter's length of carry are kept. https://www.rfc-editor.org/rfc/rfc7578
 */

/** What was read of the upload's parts. */
export interface MultipartSummary {
  /** Text fields (parts without a file name), each cut to `MAX_FIELD_BYTES`. */
  fields: Record<string, string>;
  files: { field: string; filename: string; content_type: string | null }[];
}

/** Bytes kept of a text field (a prompt, a model id); the rest is counted, not kept. */
export const MAX_FIELD_BYTES = 4096;
const MAX_PARTS = 64;
const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_END = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);

/** The `boundary` parameter of a multipart content type, or null. */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return null;
  const match = /(?:^|[;\s])boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

type State = "body" | "after-delimiter" | "headers" | "done";

/** Fed the upload chunk by chunk; `summary()` at any time. Never throws. */
export class MultipartSniffer {
  private readonly delimiter: Buffer;
  private carry: Buffer;
  private state: State = "body";
  private parts = 0;
  /** The part being read: a text field's name and kept bytes, or null for a file or the preamble. */
  private field: { name: string; chunks: Buffer[]; bytes: number } | null = null;
  // Without a prototype, so a field named `__proto__` is kept like any other.
  private readonly found: MultipartSummary = { fields: Object.create(null) as Record<string, string>, files: [] };

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    // The first delimiter has no line break before it: one is supplied, so all read alike.
    this.carry = Buffer.from("\r\n");
  }

  push(chunk: Uint8Array): void {
    if (this.state === "done") return;
    let buffer = this.joinCarry(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    for (;;) {
      if (this.state === "body") {
        const at = buffer.indexOf(this.delimiter);
        if (at === -1) {
          const keep = Math.min(buffer.byteLength, this.delimiter.byteLength - 1);
          this.keepFieldBytes(buffer.subarray(0, buffer.byteLength - keep));
          this.carry = Buffer.from(buffer.subarray(buffer.byteLength - keep));
          return;
        }
        this.keepFieldBytes(buffer.subarray(0, at));
        this.endPart();
        buffer = buffer.subarray(at + this.delimiter.byteLength);
        this.state = "after-delimiter";
      } else if (this.state === "after-delimiter") {
        if (buffer.byteLength < 2) break;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) return this.stop();
        this.state = "headers";
      } else if (this.state === "headers") {
        const at = buffer.indexOf(HEADERS_END);
        if (at === -1) {
          if (buffer.byteLength > MAX_HEADER_BYTES) return this.stop();
          break;
        }
        // The line break after the delimiter (and any transport padding) comes first.
        this.startPart(buffer.subarray(0, at).toString("utf8"));
        buffer = buffer.subarray(at + HEADERS_END.byteLength);
        this.state = "body";
        if (++this.parts > MAX_PARTS) return this.stop();
      } else {
        return;
      }
    }
    this.carry = Buffer.from(buffer);
  }

  /**
   * The chunk with what was carried over from the last one. Inside a part's body the carry is a
   * delimiter's length at most, and is only checked against the chunk's first bytes: copying a
   * whole file's chunks to prepend it would be an upload's worth of garbage.
   */
  private joinCarry(chunk: Buffer): Buffer {
    const { carry } = this;
    if (carry.byteLength === 0) return chunk;
    this.carry = EMPTY;
    // Outside a body, or with a chunk too short to settle whether a delimiter starts in the carry.
    if (this.state !== "body" || chunk.byteLength < this.delimiter.byteLength) return Buffer.concat([carry, chunk]);
    const seam = Buffer.concat([carry, chunk.subarray(0, this.delimiter.byteLength - 1)]);
    const at = seam.indexOf(this.delimiter);
    if (at === -1 || at >= carry.byteLength) {
      this.keepFieldBytes(carry);
      return chunk;
    }
    // The delimiter starts in the carry: what follows it is in the chunk.
    this.keepFieldBytes(carry.subarray(0, at));
    this.endPart();
    this.state = "after-delimiter";
    return chunk.subarray(at + this.delimiter.byteLength - carry.byteLength);
  }

  summary(): MultipartSummary {
    return { fields: { ...this.found.fields }, files: [...this.found.files] };
  }

  private stop(): void {
    this.state = "done";
    this.carry = EMPTY;
    this.field = null;
  }

  /**
   * A part is a text field only when it looks like one: a name, no file name of either form
   * (`filename`, `filename*`), and no content type or a `text/plain` one. Anything else is a file,
   * of which only the name and type are kept. A field whose name suggests a secret keeps its
   * name with a masked value.
   */
  private startPart(headerText: string): void {
    const disposition = /^content-disposition:[^\r\n]*/im.exec(headerText)?.[0] ?? "";
    const name = parameter(disposition, "name");
    const filename = parameter(disposition, "filename") ?? parameter(disposition, "filename\\*");
    const type = /^content-type:\s*([^\r\n]*)/im.exec(headerText)?.[1]?.trim() || null;
    this.field = null;
    if (name === null) return;
    const text = type === null || /^text\/plain\b/i.test(type);
    if (filename !== null || !text) {
      this.found.files.push({ field: name, filename: (filename ?? "").slice(0, MAX_NAME_LENGTH), content_type: type?.slice(0, MAX_NAME_LENGTH) ?? null });
      return;
    }
    if (SECRET_NAME.test(name)) {
      this.found.fields[name.slice(0, MAX_NAME_LENGTH)] = MASKED;
      return;
    }
    this.field = { name: name.slice(0, MAX_NAME_LENGTH), chunks: [], bytes: 0 };
  }

  private keepFieldBytes(bytes: Uint8Array): void {
    const { field } = this;
    if (!field || bytes.byteLength === 0) return;
    const room = MAX_FIELD_BYTES - field.bytes;
    if (room <= 0) return;
    const kept = Buffer.from(bytes.subarray(0, room));
    field.chunks.push(kept);
    field.bytes += kept.byteLength;
  }

  private endPart(): void {
    if (this.field) this.found.fields[this.field.name] = new TextDecoder().decode(Buffer.concat(this.field.chunks));
    this.field = null;
  }
}

/** Field names whose values are not logged. */
const SECRET_NAME = /key|secret|token|password|passwd|auth|credential|signature/i;
const MASKED = "********";
/** The longest field name, file name or content type kept. */
const MAX_NAME_LENGTH = 256;

/** A `name="value"` (or bare token) parameter of a Content-Disposition header, or null. */
function parameter(header: string, key: string): string | null {
  const match = new RegExp(`;\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, "i").exec(header);
  if (!match) return null;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : (match[2] ?? null);
}
