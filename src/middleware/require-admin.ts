import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";

/** Admin routes: a service key gets 403. Runs after `authenticate`. */
export const requireAdmin: MiddlewareHandler<GatewayEnv> = async function requireAdmin(c, next) {
  if (c.get("auth").role !== "admin") {
    throw new GatewayError("insufficient_scope", "This route needs an admin gateway key; this key is a service key.");
  }
  await next();
};

/**
 * Prompts: any key may read and run them (`GET`, `…/completions`, `…/render`);
 * creating, changing, publishing and deleting need an admin key.
 */
export const requireAdminToChangePrompts: MiddlewareHandler<GatewayEnv> = async function requireAdminToChangePrompts(c, next) {
  const runs = /\/(completions|render)$/.test(c.req.path);
  if (c.req.method === "GET" || runs) return next();
  return requireAdmin(c, next);
};
