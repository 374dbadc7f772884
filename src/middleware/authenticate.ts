import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayKeyService } from "../control-plane/gateway-key-service.ts";
import { gatewayKeyFromProtocols } from "../pipeline/realtime-session.ts";
import { GatewayError } from "../errors.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { guardMiddleware } from "./guards.ts";

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

/**
 * What an operation asks of the caller's gateway key, as its `security` in openapi/gateway.yaml
 * says: `none` (no key), `service` (any key: service or admin), `admin` (an admin key).
 */
export type GatewayScope = "none" | "service" | "admin";

/**
 * Enforces one operation's scope; codegen puts it on every generated route. Runs after
 * `authenticate` (which sets `auth` for every `/v1` request): a service key on an admin
 * operation gets 403 `insufficient_scope`, and a keyed operation never runs without a key.
 */
export function requireScope(scope: GatewayScope): MiddlewareHandler<GatewayEnv> {
  if (scope === "none") return guardMiddleware(() => undefined);
  const adminOnly = scope === "admin";
  return guardMiddleware((c) => {
    const auth = c.get("auth");
    if (!auth) throw new GatewayError("missing_api_key", `Missing gateway key: send it in the ${GATEWAY_KEY_HEADER} header.`);
    if (adminOnly && auth.role !== "admin") {
      throw new GatewayError("insufficient_scope", "This route needs an admin gateway key; this key is a service key.");
    }
  });
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
