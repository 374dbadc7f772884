import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthContext } from "./auth/auth-context.ts";
import type { RealtimeRuntime } from "./core/realtime-session.ts";
import type { RequestLog } from "./logging/request-log.ts";

/** Variables the middleware puts on the request context, typed for every route. */
export interface GatewayVariables {
  auth: AuthContext;
  requestLog: RequestLog;
}

/**
 * What an entry point may lend the app per request: `realtime` when it can upgrade the request's
 * connection to a WebSocket (`server/realtime-bun.ts`, `server/realtime-node.ts`).
 */
export interface GatewayBindings {
  realtime?: RealtimeRuntime;
}

export type GatewayEnv = { Variables: GatewayVariables; Bindings: GatewayBindings };
export type GatewayApp = OpenAPIHono<GatewayEnv>;
