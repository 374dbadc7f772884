import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { jsonShapeProblem } from "../validation/json-shape.ts";
import { isJsonContentType } from "./limit-body-size.ts";

const READ_WHOLE = new Set(["POST", "PUT", "PATCH"]);

/**
 * Refuses, before it is parsed, a JSON body whose shape would cost far more to parse and check
 * than its size says (`jsonShapeProblem`: nesting past the depth limit, an object of too many
 * keys), with 400 `invalid_request`. Runs after `limitBodyTime`, on the text it read (Hono
 * caches it), so a body is read once and a refusal costs one pass over its text.
 */
export function limitJsonShape(): MiddlewareHandler<GatewayEnv> {
  return async function limitJsonShape(c, next) {
    if (!READ_WHOLE.has(c.req.method) || c.req.raw.body === null || !isJsonContentType(c.req.header("content-type"))) return next();
    const text = await c.req.text().catch(() => null);
    // A read that failed is the route's to answer, as before.
    const problem = text === null ? null : jsonShapeProblem(text);
    if (problem) throw new GatewayError("invalid_request", problem);
    return next();
  };
}
