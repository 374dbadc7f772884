import { Scalar } from "@scalar/hono-api-reference";
import { getApiReferenceRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import { SCALAR_BUNDLE_PATH } from "./dashboard.ts";

/**
 * A readable API reference page rendered from `/openapi.json`. Scalar's script comes from this
 * gateway (`dashboard.ts` serves the package's browser bundle), not a CDN, and its default web
 * fonts are off, so the page renders offline.
 */
export function registerGetApiReference(app: GatewayApp): void {
  const page = Scalar({ url: "/openapi.json", pageTitle: "AI Gateway API reference", cdn: SCALAR_BUNDLE_PATH, withDefaultFonts: false });
  app.openapi(getApiReferenceRoute, (c, next) => page(c as never, next) as never);
}
