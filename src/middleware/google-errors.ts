import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { gatewayEnvelopeFacts, googleErrorBody } from "../families/google/index.ts";

/**
 * The paths of Google's format: anything under `/v1beta`, and the Gemini API methods the gateway
 * serves under `/v1` too (`/v1/models/{model}:generateContent`…, where `@google/genai` sends them
 * by default); never another `/v1/models/…` path, an OpenAI model's (`ft:…:…`) included.
 */
const GOOGLE_FORMAT_PATH = /^\/v1beta\/|^\/v1\/models\/.+:(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/;

/**
 * Answers errors in Google's shape (`{"error": {"code", "message", "status"}}`) for clients of
 * `@google/genai`, which read that shape. The app's error handler (the one place that builds error
 * JSON) has answered with the gateway's envelope; this reshapes that answer, keeping its status
 * and headers. On a route (inside the request logger) it also puts the reshaped body in the log;
 * in front of every route (`paths`: only on Google's format's paths) it reshapes what comes
 * before one (a missing gateway key, a body over the limit, an unknown path), and leaves a body
 * already in Google's shape as it is.
 */
export function googleErrors(options: { onlyGooglePaths?: boolean } = {}): MiddlewareHandler<GatewayEnv> {
  return async function answerErrorsAsGoogle(c, next) {
    await next();
    if (options.onlyGooglePaths && !GOOGLE_FORMAT_PATH.test(c.req.path)) return;
    if (c.res.status < 400 || !c.res.headers.get("content-type")?.includes("json")) return;
    const facts = gatewayEnvelopeFacts(c.res.status, await c.res.clone().json().catch(() => null));
    if (!facts) return;
    const body = googleErrorBody(facts);
    c.get("exchange")?.answeredErrorBody(body);
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    c.res = new Response(JSON.stringify(body), { status: c.res.status, headers });
  };
}
