import { Scalar } from "@scalar/hono-api-reference";
import { getApiReferenceRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";

/** A readable API reference page rendered from `/openapi.json`. */
export function registerGetApiReference(app: GatewayApp): void {
  const page = Scalar({ url: "/openapi.json", pageTitle: "AI Gateway API reference" });
  app.openapi(getApiReferenceRoute, (c, next) => page(c as never, next) as never);
}
