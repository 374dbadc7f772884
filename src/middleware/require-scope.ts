import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { GATEWAY_KEY_HEADER } from "./authenticate.ts";
import { guardMiddleware } from "./guards.ts";

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
