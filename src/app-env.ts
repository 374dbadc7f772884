import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthContext } from "./auth/auth-context.ts";
import type { RequestLog } from "./logging/request-log.ts";

/** Variables the middleware puts on the request context, typed for every route. */
export interface GatewayVariables {
  auth: AuthContext;
  requestLog: RequestLog;
}

export type GatewayEnv = { Variables: GatewayVariables };
export type GatewayApp = OpenAPIHono<GatewayEnv>;
