import { Scalar } from "@scalar/hono-api-reference";
import { getApiReferenceRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import { SCALAR_BUNDLE_PATH } from "./dashboard.ts";

/**
 * A readable API reference page rendered from `/openapi.json`. Scalar's script comes from this
 * gateway (`dashboard.ts` serves the package's browser bundle), not a CDN, and its default web
 * fonts, its AI agent (which asks Scalar's servers for a registry) and its telemetry are off, so
 * the page renders offline and calls nothing but this gateway.
 */
export function registerGetApiReference(app: GatewayApp): void {
  const page = Scalar({
    url: "/openapi.json",
    pageTitle: "AI Gateway API reference",
    cdn: SCALAR_BUNDLE_PATH,
    withDefaultFonts: false,
    telemetry: false,
    // Known to the bundle served (1.46), not yet to the integration's types.
    ...({ agent: { disabled: true } } as object),
  });
  app.openapi(getApiReferenceRoute, (c, next) => page(c as never, next) as never);
}
