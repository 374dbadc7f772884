import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { routeRegistrations } from "../generated/route-modules.gen.ts";

/**
 * Registers every operation of openapi/gateway.yaml. The list is generated from the document:
 * an operation's route file is `src/routes/<operationId>.ts`, exporting `register<OperationId>`.
 */
export function registerRoutes(app: GatewayApp, deps: GatewayDeps): void {
  for (const register of routeRegistrations) register(app, deps);
}
