import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";

/**
 * Refuses bodies over `maxSize` bytes with 413. A declared `content-length` is checked from
 * the header alone: touching the body stream here would make the runtime read the body
 * through a stream instead of its faster buffered path. A chunked JSON body is read whole and
 * counted (it is parsed whole anyway); any other chunked body (an upload on the pass-through)
 * is counted as it streams through, and fails with the 413 once past the limit.
 */
export function limitBodySize(maxSize: number): MiddlewareHandler<GatewayEnv> {
  const tooLarge = (): GatewayError => new GatewayError("body_too_large", `The request body is larger than ${maxSize} bytes.`);
  const counted = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge();
    },
  });
  return async function limitBody(c, next) {
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number(declared) > maxSize) throw tooLarge();
      return next();
    }
    const body = c.req.raw.body;
    if (!body || /^application\/json\b/i.test(c.req.header("content-type") ?? "")) return counted(c, next);
    let size = 0;
    const limited = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          if (size > maxSize) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    c.req.raw = new Request(c.req.raw, { body: limited, duplex: "half" } as RequestInit);
    return next();
  };
}
