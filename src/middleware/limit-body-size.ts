import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";

/**
 * Refuses bodies over `maxSize` bytes with 413. A declared `content-length` is checked from
 * the header alone: touching the body stream here would make the runtime read the body
 * through a stream instead of its faster buffered path. Chunked bodies are counted as they
 * arrive.
 */
export function limitBodySize(maxSize: number): MiddlewareHandler<GatewayEnv> {
  const tooLarge = (): never => {
    throw new GatewayError("body_too_large", `The request body is larger than ${maxSize} bytes.`);
  };
  const counted = bodyLimit({ maxSize, onError: tooLarge });
  return async function limitBody(c, next) {
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number(declared) > maxSize) tooLarge();
      return next();
    }
    return counted(c, next);
  };
}
