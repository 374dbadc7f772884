import type { Context } from "hono";
import { GatewayError } from "../errors.ts";

/** Throws on bytes that are not UTF-8, where `Request.text()` would put U+FFFD in silence. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON body's text, read once and kept where Hono's `c.req.text()` and `c.req.json()` (and so
 * every route's validator) find it. JSON text is UTF-8 (RFC 8259 §8.1): other bytes are refused
 * with 400 `invalid_json` naming the first bad byte, rather than decoded to U+FFFD and sent on
 * changed. The bytes are read as `text()` reads them and decoded once: no copy beyond its own.
 */
export function jsonBodyText(c: Context): Promise<string> {
  const cache = c.req.bodyCache as { text?: Promise<string> };
  if (cache.text) return cache.text;
  // Read from the request itself unless another form was kept already (then Hono rebuilds it).
  const bytes = Object.keys(c.req.bodyCache).length === 0 ? c.req.raw.arrayBuffer() : c.req.arrayBuffer();
  return (cache.text = bytes.then(decodeJsonText));
}

function decodeJsonText(buffer: ArrayBuffer): string {
  try {
    return strictUtf8.decode(buffer);
  } catch {
    throw new GatewayError("invalid_json", `The request body is not valid UTF-8 (${whereInvalid(new Uint8Array(buffer))}); JSON text must be UTF-8.`);
  }
}

/**
 * Where the bytes stop being UTF-8: the shortest prefix a streaming decode refuses ends with the
 * first bad byte (a sequence a prefix cuts short is not refused). Only a refused body pays.
 */
function whereInvalid(bytes: Uint8Array): string {
  if (decodesAsPrefix(bytes, bytes.length)) return "it ends inside a multi-byte character";
  let valid = 0;
  let invalid = bytes.length;
  while (invalid - valid > 1) {
    const middle = (valid + invalid) >>> 1;
    if (decodesAsPrefix(bytes, middle)) valid = middle;
    else invalid = middle;
  }
  const at = invalid - 1;
  return `byte ${at} is 0x${bytes[at]!.toString(16).toUpperCase().padStart(2, "0")}`;
}

function decodesAsPrefix(bytes: Uint8Array, length: number): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, length), { stream: true });
    return true;
  } catch {
    return false;
  }
}
