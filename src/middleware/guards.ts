import type { Context, MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";

/** A middleware that only checks the request (it throws, or goes on): its check, callable without a middleware hop. */
export type GuardCheck = (c: Context<GatewayEnv>) => void;

const checks = new WeakMap<MiddlewareHandler<GatewayEnv>, GuardCheck>();

/** The middleware of a check, known as a guard so a route's pipeline can run the check inline. */
export function guardMiddleware(check: GuardCheck): MiddlewareHandler<GatewayEnv> {
  const middleware: MiddlewareHandler<GatewayEnv> = async function guard(c, next) {
    check(c);
    await next();
  };
  checks.set(middleware, check);
  return middleware;
}

/** The check of a guard middleware; undefined for any other middleware. */
export function guardCheckOf(middleware: MiddlewareHandler<GatewayEnv>): GuardCheck | undefined {
  return checks.get(middleware);
}
