import { createHash, timingSafeEqual } from "node:crypto";
import { getMetricsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";

/**
 * Prometheus metrics: 404 when off; with `GATEWAY_METRICS_TOKEN`, only for `Authorization: Bearer
 * <token>` (a token set wins over `GATEWAY_METRICS=public`); otherwise open.
 */
export function registerGetMetrics(app: GatewayApp, deps: GatewayDeps): void {
  const token = deps.config.GATEWAY_METRICS_TOKEN;
  const expected = token === undefined ? null : digest(token);
  app.openapi(getMetricsRoute, async (c) => {
    const { metrics } = deps;
    if (!metrics) throw new GatewayError("not_found", "Metrics are off: set GATEWAY_METRICS_TOKEN or GATEWAY_METRICS=public.");
    if (expected) {
      const presented = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
      if (presented === undefined) throw new GatewayError("missing_api_key", "Send the metrics token as Authorization: Bearer <token>.");
      // Hashes are compared, so neither the length nor the bytes of the token leak through timing.
      if (!timingSafeEqual(digest(presented), expected)) throw new GatewayError("invalid_api_key", "The metrics token is not valid.");
    }
    const { text, contentType } = await metrics.render();
    return c.text(text, 200, { "content-type": contentType });
  });
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
