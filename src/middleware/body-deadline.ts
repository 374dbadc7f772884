import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { isJsonContentType } from "./limit-body-size.ts";
import { jsonBodyText } from "./json-body-text.ts";

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
