/**
 * What the log keeps of a body too large to keep whole: its first bytes, its last bytes (where
 * an OpenAI answer carries `usage`) and its full size. Memory stays bounded by the two limits
 * whatever the body's size.
 */
export interface CapturedBody {
  /** The first `headLimit` bytes as text (a character cut in half at the end is left out). */
  head: string;
  /** The last bytes as text when the body was cut, else null (`head` is the whole body). */
  tail: string | null;
  totalBytes: number;
  truncated: boolean;
}

/** The last bytes kept of a cut body: enough for an answer's `usage` and the fields after it. */
export const TAIL_BYTES = 64 * 1024;

export class BodyCapture {
  private readonly headChunks: Uint8Array[] = [];
  private headBytes = 0;
  private tailChunks: Uint8Array[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit = TAIL_BYTES,
  ) {}

  get totalBytes(): number {
    return this.total;
  }

  /** Counts the chunk and keeps what falls in the head or may fall in the tail. Never throws. */
  add(chunk: Uint8Array): void {
    this.total += chunk.byteLength;
    const room = this.headLimit - this.headBytes;
    if (room > 0) {
      const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
      this.headChunks.push(part);
      this.headBytes += part.byteLength;
    }
    this.tailChunks.push(chunk);
    this.tailBytes += chunk.byteLength;
    while (this.tailChunks.length > 1 && this.tailBytes - this.tailChunks[0]!.byteLength >= this.tailLimit) {
      this.tailBytes -= this.tailChunks.shift()!.byteLength;
    }
  }

  result(): CapturedBody {
    const truncated = this.total > this.headLimit;
    const head = new TextDecoder().decode(concat(this.headChunks, this.headBytes), { stream: true });
    if (!truncated) return { head, tail: null, totalBytes: this.total, truncated };
    const tailBytes = concat(this.tailChunks, this.tailBytes);
    const tail = new TextDecoder().decode(tailBytes.subarray(Math.max(0, tailBytes.byteLength - this.tailLimit)));
    return { head, tail, totalBytes: this.total, truncated };
  }
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes at a character boundary, with its full size.
 * Never throws.
 */
export function capText(text: string, maxBytes: number): { text: string; totalBytes: number; truncated: boolean } {
  const totalBytes = Buffer.byteLength(text, "utf8");
  if (totalBytes <= maxBytes) return { text, totalBytes, truncated: false };
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return { text: text.slice(0, read), totalBytes, truncated: true };
}
