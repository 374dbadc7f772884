import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { chunkCollector, UPLOAD_COLLECTION_BYTES } from "../lib/chunk-collector.ts";

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
