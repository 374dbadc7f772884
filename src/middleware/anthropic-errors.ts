import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { anthropicErrorBody, envelopeFacts } from "../families/messages/errors.ts";

/**
 * Answers a route's errors in Anthropic's shape (`{type: "error", error: {type, message}}`) for
 * clients of the Anthropic SDK, which read that shape. The app's error handler (the one place
 * that builds error JSON) has answered with the gateway's envelope; this reshapes that answer,
 * keeping its status and headers, and puts the reshaped body in the request log, so the log
 * shows what the client got. Sits inside the request logger; errors before the route (a missing
 * gateway key, a body over the size limit) keep the envelope.
 */
export function anthropicErrors(): MiddlewareHandler<GatewayEnv> {
  return async function answerErrorsAsAnthropic(c, next) {
    await next();
    if (!c.error || !c.res.headers.get("content-type")?.includes("json")) return;
    const facts = envelopeFacts(c.res.status, await c.res.clone().json().catch(() => null));
    if (!facts) return;
    const exchange = c.get("exchange");
    const body = anthropicErrorBody(facts, exchange?.id);
    exchange?.answeredErrorBody(body);
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    c.res = new Response(JSON.stringify(body), { status: c.res.status, headers });
  };
}
