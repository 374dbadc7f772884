/**
 * Where an Anthropic client's upstream key comes from. The Anthropic SDK sends its `apiKey` as
 * `x-api-key` (and an `authToken` as `Authorization: Bearer`); the gateway key travels apart,
 * in `x-gateway-api-key`. A virtual key or config's credential still wins, as for chat.
 */
import { fail, GatewayError, ok, type Result } from "../../errors.ts";

/** The prefix of the secrets the gateway issues (`gateway-key-secret.ts`). */
const GATEWAY_SECRET_PREFIX = "gw_";

/**
 * The `Authorization` the core reads the upstream key from: the client's own when it sent one,
 * else `x-api-key` as a bearer key. A gateway key in `x-api-key` (the one that authenticated
 * this request, or any issued secret) is refused rather than sent upstream. Pure.
 */
export function upstreamAuthorization(headers: { authorization?: string; apiKey?: string; gatewayKey?: string }): Result<string | undefined, GatewayError> {
  const { authorization, apiKey, gatewayKey } = headers;
  if (apiKey !== undefined && (apiKey === gatewayKey || apiKey.startsWith(GATEWAY_SECRET_PREFIX))) {
    return fail(new GatewayError("invalid_request", "x-api-key holds a gateway key, which is never sent upstream: send the gateway key in x-gateway-api-key and the provider's key in x-api-key.", { param: "x-api-key" }));
  }
  if (authorization !== undefined || !apiKey) return ok(authorization);
  return ok(`Bearer ${apiKey}`);
}
