/**
 * Reading a request body, in the order a request meets it: the size limit, counted before routing
 * (`limitBodySize`); the deadline of a JSON body's arrival, which reads it once as strict UTF-8
 * text (`limitBodyTime`, `jsonBodyText`); and the check of its JSON shape before it is parsed
 * (`limitJsonShape`, `jsonShapeProblem`). The routes' validators then parse the text kept here.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { chunkCollector, UPLOAD_COLLECTION_BYTES } from "../lib/chunk-collector.ts";
import { MAX_JSON_DEPTH } from "../validation/json-depth.ts";

/** The media types the routes read and parse as JSON (`application/json`, `application/*+json`). */
const JSON_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i;

/** True for a JSON body's content type: such a body is read whole, within `GATEWAY_MAX_BODY_BYTES`. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  return JSON_TYPE.test(contentType ?? "");
}

export interface BodyLimits {
  /** A JSON body, read whole and parsed (`GATEWAY_MAX_BODY_BYTES`). */
  maxJsonBytes: number;
  /** Any other body, passed upstream as it arrives: an upload, a binary body (`GATEWAY_MAX_UPLOAD_BYTES`). */
  maxUploadBytes: number;
}

/**
 * Refuses bodies over their limit with 413. The middleware runs before routing, so it cannot
 * know which route takes an upload: it decides by content type. A JSON body gets the JSON limit;
 * any other (or one without a type) the upload limit, since the routes pass those upstream as
 * they arrive and never hold them. A declared `content-length` is checked from the header
 * alone: touching the body stream here would make the runtime read the body through a stream
 * instead of its faster buffered path (and the HTTP parser holds the body to its length). A
 * chunked body is counted as it streams through, never read here: this runs before the key check
 * and before the body deadline, so reading it here would let a caller without a key hold a
 * connection and up to the limit in memory for as long as it likes. Past the limit the stream
 * fails with the 413: a JSON body's read (`limitBodyTime`) answers it, and an upload's upstream
 * request, reading that stream, is cut off, never completed.
 */
export function limitBodySize(limits: BodyLimits): MiddlewareHandler<GatewayEnv> {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`limitBodySize: ${name} must be a positive whole number`);
  }
  const tooLarge = (json: boolean): GatewayError =>
    json
      ? new GatewayError("body_too_large", `The JSON request body is larger than GATEWAY_MAX_BODY_BYTES (${limits.maxJsonBytes} bytes).`)
      : new GatewayError("body_too_large", `The upload is larger than GATEWAY_MAX_UPLOAD_BYTES (${limits.maxUploadBytes} bytes).`);
  return async function limitBody(c, next) {
    const json = isJsonContentType(c.req.header("content-type"));
    const maxSize = json ? limits.maxJsonBytes : limits.maxUploadBytes;
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number(declared) > maxSize) throw tooLarge(json);
      return next();
    }
    const body = c.req.raw.body;
    if (!body) return next();
    let size = 0;
    const passed = chunkCollector(UPLOAD_COLLECTION_BYTES);
    const limited = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          passed(chunk.byteLength);
          if (size > maxSize) controller.error(tooLarge(json));
          else controller.enqueue(chunk);
        },
      }),
    );
    c.req.raw = new Request(c.req.raw, { body: limited, duplex: "half" } as RequestInit);
    return next();
  };
}

/** Methods whose JSON body a route reads whole; GET and DELETE routes forward any body as it is. */
const READ_WHOLE = new Set(["POST", "PUT", "PATCH"]);

/**
 * Bounds how long a JSON body may take to arrive (`GATEWAY_BODY_TIMEOUT_MS`, counted from the
 * headers): a client trickling its body a byte at a time is answered 408 `request_timeout` and
 * its connection closed, instead of holding a connection and a half-read body for as long as
 * it likes. Bun's server has no such deadline (its idle timeout restarts with every byte), so
 * the gateway sets it itself; under Node the server's `requestTimeout` backs it up.
 *
 * The body is read here as the text the route's JSON validator reads (`jsonBodyText`, kept where
 * Hono's `text()` and `json()` find it), strictly as UTF-8: bytes that are not are a 400 here,
 * whatever the route. The request path does no extra work. A
 * route that forwards its body as sent (a cancel) sends that text (`forwardedBody`). A chunked
 * body past its limit fails this read with the 413 `limitBodySize` counts it against, answered
 * here; any other failed read (a client gone) is left for the route to meet, where it is answered
 * as before.
 */
export function limitBodyTime(timeoutMs: number): MiddlewareHandler<GatewayEnv> {
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new Error("limitBodyTime: timeoutMs must be a positive whole number");
  const expired = (): GatewayError =>
    new GatewayError("request_timeout", `The request body did not arrive within GATEWAY_BODY_TIMEOUT_MS (${timeoutMs} ms).`, {
      // The rest of the body may still be on its way: the connection cannot carry another request.
      headers: { connection: "close" },
    });
  return async function limitBodyTime(c, next) {
    if (!READ_WHOLE.has(c.req.method) || c.req.raw.body === null || !isJsonContentType(c.req.header("content-type"))) return next();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    let refused: GatewayError | undefined;
    const read = jsonBodyText(c).then(
      () => true,
      (error: unknown) => {
        if (error instanceof GatewayError) refused = error;
        return true;
      },
    );
    const arrived = await Promise.race([read, deadline]);
    clearTimeout(timer);
    if (!arrived) throw expired();
    if (refused) throw refused;
    return next();
  };
}

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

/**
 * Refuses, before it is parsed, a JSON body whose shape would cost far more to parse and check
 * than its size says (`jsonShapeProblem`: nesting past the depth limit, an object of too many
 * keys), with 400 `invalid_request`. Runs after `limitBodyTime`, on the text it read (Hono
 * caches it), so a body is read once and a refusal costs one pass over its text.
 */
export function limitJsonShape(): MiddlewareHandler<GatewayEnv> {
  return async function limitJsonShape(c, next) {
    if (!READ_WHOLE.has(c.req.method) || c.req.raw.body === null || !isJsonContentType(c.req.header("content-type"))) return next();
    const text = await c.req.text().catch(() => null);
    // A read that failed is the route's to answer, as before.
    const problem = text === null ? null : jsonShapeProblem(text);
    if (problem) throw new GatewayError("invalid_request", problem);
    return next();
  };
}

/**
 * How many keys one JSON object in a request body may hold. Objects of millions of keys cost
 * seconds to build and every walk over them as long again (a runtime keeps such an object as a
 * dictionary); no body of the operations the gateway serves needs more than a few hundred.
 */
export const MAX_JSON_OBJECT_KEYS = 10_000;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;

/**
 * What makes a JSON text too costly to parse and check: nesting deeper than `MAX_JSON_DEPTH`, or
 * an object of more than `MAX_JSON_OBJECT_KEYS` keys; null when neither. Reads the text once
 * before it is parsed, jumping from quote to quote through strings, so the cost of a refusal is
 * a fraction of the parse it spares. Text that is not JSON is left to the parser. Never throws.
 */
export function jsonShapeProblem(text: string, maxDepth: number = MAX_JSON_DEPTH, maxKeys: number = MAX_JSON_OBJECT_KEYS): string | null {
  // Per open container: the commas seen so far in an object, or -1 for an array.
  const commas = new Int32Array(maxDepth + 1);
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuote(text, index);
      if (index < 0) return null;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (depth === maxDepth) return `The JSON body is nested deeper than ${maxDepth} levels.`;
      commas[depth] = code === OPEN_OBJECT ? 0 : -1;
      depth += 1;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) depth -= 1;
    } else if (code === COMMA && depth > 0) {
      const seen = commas[depth - 1] as number;
      if (seen < 0) continue;
      if (seen + 1 >= maxKeys) return `An object in the JSON body has more than ${maxKeys} keys.`;
      commas[depth - 1] = seen + 1;
    }
  }
  return null;
}

/** The index of the quote that closes the string opened at `open`, or -1 when none does. */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close > 0) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}
