import { getHealthRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";

export function registerGetHealth(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getHealthRoute, (c) => c.json({ status: "ok" as const, version: deps.version }, 200));
}
