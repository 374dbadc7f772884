import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { guardMiddleware } from "./guards.ts";

/**
 * Checks that a streamed request body (a multipart upload) has one of the media types its
 * operation documents, from the `Content-Type` header alone: the body is never read, so it can
 * go upstream as it arrives. Codegen puts it on every route whose body the document describes
 * in no JSON media type (such a route gets no body validator, which would parse the body whole).
 * A multipart type must name its boundary. Otherwise 400 `invalid_request` naming `content-type`.
 */
export function requireMediaType(mediaTypes: readonly string[]): MiddlewareHandler<GatewayEnv> {
  if (mediaTypes.length === 0) throw new Error("requireMediaType: list at least one media type.");
  const accepted = new Set(mediaTypes.map((type) => type.toLowerCase()));
  const listed = mediaTypes.join(", ");
  return guardMiddleware(function requireBodyMediaType(c) {
    const header = c.req.header("content-type") ?? "";
    const [essence = "", ...parameters] = header.split(";").map((part) => part.trim());
    const type = essence.toLowerCase();
    // A boundary of 1 to 70 characters, quoted or not (RFC 2046): an empty one delimits nothing.
    const boundary = parameters.some((parameter) => /^boundary=("[^"]{1,70}"|[^"\s]{1,70})$/i.test(parameter));
    if (!accepted.has(type) || (type.startsWith("multipart/") && !boundary)) {
      throw new GatewayError("invalid_request", `The body must be ${listed}${listed.includes("multipart/") ? " with its boundary" : ""}.`, { param: "content-type" });
    }
  });
}
