import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayKeyService } from "../auth/gateway-key-service.ts";
import { gatewayKeyFromProtocols } from "../pipeline/realtime-session.ts";
import { GatewayError } from "../errors.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";

/** The header that carries the gateway key: the document's `gatewayApiKey` security scheme. */
export const GATEWAY_KEY_HEADER = openApiDocument.components.securitySchemes.gatewayApiKey.name;

/**
 * Requires a valid `x-gateway-api-key` and sets `auth` on the context. A WebSocket upgrade may
 * carry the key as the subprotocol `gateway-key.<key>` instead (browsers cannot set headers).
 */
export function authenticate(keys: GatewayKeyService): MiddlewareHandler<GatewayEnv> {
  return async function authenticateGatewayKey(c, next) {
    const secret = c.req.header(GATEWAY_KEY_HEADER) ?? subprotocolKey(c.req.header("upgrade"), c.req.header("sec-websocket-protocol"));
    if (!secret) {
      throw new GatewayError("missing_api_key", `Missing gateway key: send it in the ${GATEWAY_KEY_HEADER} header.`);
    }
    // Most requests present a key already known: answer those without an async hop.
    const cached = keys.authenticateCached(secret);
    const auth = cached !== undefined ? cached : await keys.authenticate(secret);
    if (!auth) throw new GatewayError("invalid_api_key", "Invalid, revoked or expired gateway key.");
    c.set("auth", auth);
    await next();
  };
}

/** The key a WebSocket upgrade offers as a subprotocol; only upgrades may use that form. */
function subprotocolKey(upgrade: string | undefined, protocols: string | undefined): string | undefined {
  return upgrade?.toLowerCase() === "websocket" ? gatewayKeyFromProtocols(protocols) : undefined;
}

/**
 * The MCP gateway's key check (`/mcp`): MCP clients send credentials as `Authorization: Bearer
 * <key>`, so the gateway key is taken from there or from `x-gateway-api-key`. A request without a
 * valid one gets 401 with `WWW-Authenticate: Bearer`, as MCP's authorization rules expect.
 */
export function authenticateMcp(keys: GatewayKeyService): MiddlewareHandler<GatewayEnv> {
  const challenge = { "www-authenticate": 'Bearer realm="ai-gateway", error="invalid_token"' };
  return async function authenticateMcpClient(c, next) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const secret = c.req.header(GATEWAY_KEY_HEADER) ?? bearer;
    if (!secret) {
      throw new GatewayError("missing_api_key", "Missing gateway key: send it as Authorization: Bearer <key> or in x-gateway-api-key.", { headers: challenge });
    }
    const cached = keys.authenticateCached(secret);
    const auth = cached !== undefined ? cached : await keys.authenticate(secret);
    if (!auth) throw new GatewayError("invalid_api_key", "Invalid, revoked or expired gateway key.", { headers: challenge });
    c.set("auth", auth);
    await next();
  };
}
