/**
 * Where the upstream key of a client of another format comes from. The Anthropic SDK sends its
 * `apiKey` as `Authorization: Bearer` (1.x; `x-api-key` before 1.0, and from `curl` examples),
 * `@google/genai` as `x-goog-api-key`; the gateway key travels apart, in `x-gateway-api-key`.
 * A virtual key or config's credential still wins, as for chat.
 */
import { fail, GatewayError, ok, type Result } from "../../errors.ts";

/** The prefix of the secrets the gateway issues (`gateway-key-service.ts`). */
const GATEWAY_SECRET_PREFIX = "gw_";

/**
 * The `Authorization` the core reads the upstream key from: the client's own when it sent one,
 * else the format's key header (`apiKeyHeader`, `x-api-key` unless named) as a bearer key. A
 * gateway key in either (the one that authenticated this request, or any issued secret) is
 * refused rather than sent upstream: an SDK user who set `apiKey` to the gateway key would
 * otherwise hand it to the provider. Pure.
 */
export function upstreamAuthorization(headers: { authorization?: string; apiKey?: string; gatewayKey?: string; apiKeyHeader?: string }): Result<string | undefined, GatewayError> {
  const { authorization, apiKey, gatewayKey, apiKeyHeader = "x-api-key" } = headers;
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(.+)$/i.exec(authorization.trim())?.[1];
  const isGatewayKey = (key: string | undefined): boolean => key !== undefined && (key === gatewayKey || key.startsWith(GATEWAY_SECRET_PREFIX));
  if (isGatewayKey(bearer) || isGatewayKey(apiKey)) {
    const param = isGatewayKey(bearer) ? "Authorization" : apiKeyHeader;
    return fail(
      new GatewayError("invalid_request", `${param} holds a gateway key, which is never sent upstream: send the gateway key in x-gateway-api-key and the provider's key as the client's apiKey.`, { param }),
    );
  }
  if (authorization !== undefined || !apiKey) return ok(authorization);
  return ok(`Bearer ${apiKey}`);
}
