import type { Context } from "hono";
import type { GatewayEnv } from "../../app-env.ts";
import { jsonProxyInput, type ProxyRouteHeaders } from "./proxy-route.ts";
import type { ProxyInput } from "../../pipeline/proxy-operation.ts";
import type { Result } from "../../errors.ts";
import type { GatewayError } from "../../errors.ts";
import { GATEWAY_KEY_HEADER } from "../../middleware/authenticate.ts";
import { upstreamAuthorization } from "../../inbound/anthropic-messages/upstream-key.ts";

/** The headers of the Anthropic-format routes: the gateway's, and the SDK's `x-api-key`. */
export interface AnthropicRouteHeaders extends ProxyRouteHeaders {
  "x-api-key"?: string;
}

/**
 * The proxy input of an Anthropic-format route: its validated body with the client's exact
 * text (the log keeps the request as the client sent it), the upstream key from
 * `Authorization` or `x-api-key` (`upstream-key.ts`).
 */
export async function anthropicProxyInput(c: Context<GatewayEnv>, body: Record<string, unknown>, headers: AnthropicRouteHeaders): Promise<Result<ProxyInput, GatewayError>> {
  const authorization = upstreamAuthorization({ authorization: headers.Authorization, apiKey: headers["x-api-key"], gatewayKey: c.req.header(GATEWAY_KEY_HEADER) });
  if (!authorization.ok) return authorization;
  return { ok: true, value: await jsonProxyInput(c, body, { ...headers, Authorization: authorization.value }) };
}
