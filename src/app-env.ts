import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthContext } from "./control-plane/auth-context.ts";
import type { RealtimeRuntime } from "./pipeline/realtime-session.ts";
import type { Exchange } from "./pipeline/exchange.ts";

/** Variables the middleware puts on the request context, typed for every route. */
export interface GatewayVariables {
  auth: AuthContext;
  exchange: Exchange;
}

/**
 * What an entry point may lend the app per request: `realtime` when it can upgrade the request's
 * connection to a WebSocket (`server/realtime-bun.ts`, `server/realtime-node.ts`, `server/realtime-deno.ts`).
 */
export interface GatewayBindings {
  realtime?: RealtimeRuntime;
  /** Set by an entry point that must act once an answer is complete (Bun: `server/bun-idle.ts`). */
  answerEnd?: AnswerEnd;
}

/**
 * An answer's end, for the entry point. An answer whose body outlives the route (a relayed
 * stream, whose log finishes when it ends) is marked `later` and `ended` is called at its end
 * (a relayed stream calls it before its last bytes go out, and the log's settling again);
 * any other answer is complete as the route returns it.
 */
export interface AnswerEnd {
  later: boolean;
  ended(): void;
}

export type GatewayEnv = { Variables: GatewayVariables; Bindings: GatewayBindings };
export type GatewayApp = OpenAPIHono<GatewayEnv>;
