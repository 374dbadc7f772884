/**
 * An MCP server's answer bytes as the SDK may hold them: every JSON string longer than
 * `maxStringBytes` is cut while it streams past (the rest of it is counted and dropped, the
 * JSON stays valid), and a message (a JSON body, or one event of an event stream) that still
 * holds more than `maxMessageBytes`, or that runs past `maxReadBytes` read, ends the stream
 * with an error. One pass over the bytes, a few counters of state: a 200 MB tool result costs
 * the bytes it keeps, not the bytes it sent. Raw line breaks cannot occur inside a JSON string,
 * so each one resets the string state: a hostile byte sequence confuses no more than its line.
 */

export interface MessageCutLimits {
  /** A JSON string holds at most this many bytes (UTF-8, as decoded); the rest is dropped. */
  maxStringBytes: number;
  /** A message holds at most this many bytes once its strings are cut. */
  maxMessageBytes: number;
  /** A message is read for at most this many bytes. */
  maxReadBytes: number;
}

export interface MessageCutHooks {
  /** A string was cut: `dropped` bytes (as decoded) of it were not passed on. */
  onCut(dropped: number): void;
  /** A message passed a bound; the stream errors with the same error. */
  onOverflow(error: Error): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const CR = 0x0d;
const U = 0x75;
const SPECIAL = [QUOTE, BACKSLASH, LF, CR];

/**
 * The cutting stream for one answer body. `eventStream` says the body is `text/event-stream`,
 * whose events (ended by a blank line) are each a message; any other body is one message.
 */
export function messageCutStream(limits: MessageCutLimits, eventStream: boolean, hooks: MessageCutHooks): TransformStream<Uint8Array, Uint8Array> {
  let inString = false;
  /** 0: none; 1: after a backslash; 2–5: after `\u` and that many hex digits minus two. */
  let escape = 0;
  const pending = new Uint8Array(6);
  let pendingLength = 0;
  let hex = 0;
  let kept = 0;
  let dropped = 0;
  let lastKept = true;
  let held = 0;
  let read = 0;
  let lineLength = 0;
  let failed = false;
  let scratch = new Uint8Array(0);
  const next = new Int32Array(SPECIAL.length);

  const endString = (): void => {
    if (dropped > 0) hooks.onCut(dropped);
    inString = false;
    escape = 0;
    pendingLength = 0;
    dropped = 0;
  };

  const overflow = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    failed = true;
    const error = new Error(
      read > limits.maxReadBytes
        ? `An answer of the MCP server ran past ${limits.maxReadBytes} bytes.`
        : `An answer of the MCP server holds more than ${limits.maxMessageBytes} bytes once its long strings are cut (GATEWAY_MCP_MAX_MESSAGE_BYTES).`,
    );
    hooks.onOverflow(error);
    controller.error(error);
  };

  return new TransformStream<Uint8Array, Uint8Array>({
    transform(bytes, controller) {
      if (failed) return;
      const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      next.fill(-2);
      // What is kept is written to a scratch buffer and copied out: a chunk that is all cut costs no allocation.
      if (scratch.length < chunk.length + pending.length) scratch = new Uint8Array(chunk.length + pending.length);
      const out = scratch;
      let at = 0;
      const put = (byte: number): void => {
        out[at++] = byte;
        held += 1;
      };
      /** Keeps or drops one decoded unit of a string (`size` bytes as decoded) and its raw bytes. */
      const unit = (raw: ArrayLike<number>, rawLength: number, size: number): void => {
        if (dropped === 0 && kept + size <= limits.maxStringBytes) {
          for (let index = 0; index < rawLength; index++) put(raw[index]!);
          kept += size;
          lastKept = true;
        } else {
          dropped += size;
          lastKept = false;
        }
      };
      const single = [0];
      for (let index = 0; index < chunk.length; index++) {
        let byte = chunk[index]!;
        if (inString && dropped > 0 && escape === 0 && byte !== QUOTE && byte !== BACKSLASH && byte !== LF && byte !== CR) {
          // The rest of a cut string: counted and skipped.
          const from = index;
          index = plainRun(chunk, index, next);
          byte = index < chunk.length ? chunk[index]! : 0;
          dropped += index - from;
          read += index - from;
          lineLength += index - from;
          lastKept = false;
          if (read > limits.maxReadBytes) return overflow(controller);
          if (index === chunk.length) break;
        }
        read += 1;
        if (byte === LF || byte === CR) {
          if (inString) endString();
          put(byte);
          if (byte === LF) {
            // A blank line ends an event: the next one is a message of its own.
            if (eventStream && lineLength === 0) {
              held = 0;
              read = 0;
            }
            lineLength = 0;
          }
          continue;
        }
        lineLength += 1;
        if (!inString) {
          put(byte);
          if (byte === QUOTE) {
            inString = true;
            kept = 0;
            dropped = 0;
            lastKept = true;
          }
        } else if (escape === 1) {
          pending[pendingLength++] = byte;
          if (byte === U) {
            escape = 2;
            hex = 0;
          } else {
            escape = 0;
            unit(pending, pendingLength, 1);
            pendingLength = 0;
          }
        } else if (escape >= 2) {
          pending[pendingLength++] = byte;
          hex = hex * 16 + hexValue(byte);
          escape += 1;
          if (escape === 6) {
            escape = 0;
            // A surrogate counts two bytes: a pair is the four of its character.
            unit(pending, pendingLength, hex < 0x80 ? 1 : hex < 0x800 || (hex >= 0xd800 && hex <= 0xdfff) ? 2 : 3);
            pendingLength = 0;
          }
        } else if (byte === BACKSLASH) {
          escape = 1;
          pending[0] = byte;
          pendingLength = 1;
        } else if (byte === QUOTE) {
          put(byte);
          endString();
        } else if (byte >= 0x80 && byte <= 0xbf) {
          // A character's continuation byte goes where its first byte went: no character is split.
          if (lastKept) {
            put(byte);
            kept += 1;
          } else dropped += 1;
        } else {
          single[0] = byte;
          unit(single, 1, 1);
        }
        if (held > limits.maxMessageBytes || read > limits.maxReadBytes) return overflow(controller);
      }
      if (at > 0) controller.enqueue(out.slice(0, at));
    },
    flush() {
      if (inString) endString();
    },
  });
}

/**
 * Where the bytes from `from` stop being plain string bytes: the next quote, backslash or line
 * break, searched natively. `next` keeps each one's last position found in this chunk (-1: none
 * left; below `from`: to be searched again), so a chunk is searched once for each, however
 * many escapes it holds.
 */
function plainRun(chunk: Buffer, from: number, next: Int32Array): number {
  let end = chunk.length;
  for (let kind = 0; kind < SPECIAL.length; kind++) {
    let at = next[kind]!;
    if (at !== -1 && at < from) {
      at = chunk.indexOf(SPECIAL[kind]!, from);
      next[kind] = at;
    }
    if (at !== -1 && at < end) end = at;
  }
  return end;
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  return 0;
}
