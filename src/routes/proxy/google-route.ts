import type { RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { GatewayEnv } from "../../app-env.ts";
import type { ProxyInput } from "../../pipeline/proxy-operation.ts";
import { GATEWAY_KEY_HEADER } from "../../middleware/authenticate.ts";
import { googleErrors } from "../../middleware/google-errors.ts";
import { upstreamAuthorization } from "../../families/messages/upstream-key.ts";
import type { GatewayError, Result } from "../../errors.ts";
import type { JsonObject } from "../../providers/provider.ts";

/** The Gemini API's method path: `/v1beta/models/{model}:<method>`. */
const METHOD_PATH = /^\/v1beta\/models\/\{model\}:(\w+)$/;

/**
 * A Gemini-format route (`/v1beta/models/{model}:<method>`): its errors answered in Google's
 * shape, and its path matched as Hono can. The document's path puts the method after a colon in
 * the model's segment, which Hono's `:param` syntax would read as one parameter named
 * `model:<method>`; the route matches `:model{.+:<method>}` instead (the model may hold dots,
 * colons, and in the `@<provider>/<model>` form a slash), and `geminiModel` takes the method off.
 * It answers under `/v1` too: Google serves both versions, and `@google/genai` sends `v1` unless
 * told otherwise (a POST there is no OpenAI route's).
 */
export function googleRoute<R extends RouteConfig>(route: R): R {
  const path = googleRoutePath(route.path);
  if (path === null) throw new Error(`${route.path} is not a Gemini API method path.`);
  return { ...route, path, middleware: [googleErrors(), ...(route.middleware === undefined ? [] : [route.middleware].flat())] };
}

/** The Hono path a Gemini API method's document path is served at; null for any other path. */
export function googleRoutePath(documentPath: string): string | null {
  return METHOD_PATH.test(documentPath) ? documentPath.replace(METHOD_PATH, "/:apiVersion{v1beta|v1}/models/:model{.+:$1}") : null;
}

/** The model a Gemini-format route's path names (its method taken off). */
export function geminiModel(c: Context<GatewayEnv>, route: RouteConfig): string {
  const method = METHOD_PATH.exec(route.path)![1]!;
  return c.req.param("model")!.slice(0, -(method.length + 1));
}

/**
 * The proxy input of a Gemini-format request: the upstream key from `Authorization` or the SDK's
 * `x-goog-api-key` (`upstream-key.ts`). Throws the refusal when either holds a gateway key.
 */
export function withGoogleKey(c: Context<GatewayEnv>, input: ProxyInput): ProxyInput {
  const authorization = upstreamAuthorization({
    authorization: c.req.header("authorization"),
    apiKey: c.req.header("x-goog-api-key"),
    gatewayKey: c.req.header(GATEWAY_KEY_HEADER),
    apiKeyHeader: "x-goog-api-key",
  });
  if (!authorization.ok) throw authorization.error;
  return { ...input, headers: { ...input.headers, authorization: authorization.value } };
}

/**
 * The proxy input the core serves for a Gemini-format request: its body translated into the
 * operation the upstream serves (throwing the translation's refusal), the client's own body kept
 * for the log.
 */
export function translatedInput(input: ProxyInput, translate: (body: JsonObject) => Result<JsonObject, GatewayError>): ProxyInput {
  if (input.body.kind !== "json") return input;
  const translated = translate(input.body.value);
  if (!translated.ok) throw translated.error;
  const clientBodyText = input.body.raw ?? JSON.stringify(input.body.value);
  return { ...input, body: { kind: "json", value: translated.value }, clientBodyText };
}
