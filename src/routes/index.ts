import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { routeRegistrations } from "../generated/route-modules.gen.ts";
import { registerDashboard } from "./dashboard.ts";
import { registerPassThrough } from "./passThrough.ts";

/**
 * Registers every operation of openapi/gateway.yaml. The list is generated from the document:
 * an operation's route file is `src/routes/<operationId>.ts`, exporting `register<OperationId>`.
 * The pass-through (`passThrough.ts`) and the dashboard's static files (`dashboard.ts`) are the
 * routes outside the document.
 */
export function registerRoutes(app: GatewayApp, deps: GatewayDeps): void {
  for (const register of routeRegistrations) register(app, deps);
  registerDashboard(app);
  // Last, so every documented route wins over it.
  registerPassThrough(app, deps);
}
