import type { RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { GatewayEnv } from "../../app-env.ts";
import type { ProxyInput } from "../../pipeline/proxy-operation.ts";
import { GATEWAY_KEY_HEADER } from "../../middleware/authenticate.ts";
import { anthropicErrors } from "../../middleware/anthropic-errors.ts";
import { upstreamAuthorization } from "../../families/messages/upstream-key.ts";

/** An Anthropic-format route (`/v1/messages…`): its errors answered in Anthropic's shape. */
export function anthropicRoute<R extends RouteConfig>(route: R): R {
  return { ...route, middleware: [anthropicErrors(), ...(route.middleware === undefined ? [] : [route.middleware].flat())] };
}

/**
 * The proxy input of an Anthropic-format request: the upstream key from `Authorization` or the
 * SDK's `x-api-key` (`upstream-key.ts`). Throws the refusal when the two disagree.
 */
export function withAnthropicKey(c: Context<GatewayEnv>, input: ProxyInput): ProxyInput {
  const authorization = upstreamAuthorization({ authorization: c.req.header("authorization"), apiKey: c.req.header("x-api-key"), gatewayKey: c.req.header(GATEWAY_KEY_HEADER) });
  if (!authorization.ok) throw authorization.error;
  return { ...input, headers: { ...input.headers, authorization: authorization.value } };
}
