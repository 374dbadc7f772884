import type { RouteHandler } from "@hono/zod-openapi";
import { endMcpGatewaySessionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpHttpRequest } from "./mcp/mcp-http.ts";

/** Ends an MCP client's session. Its answers are MCP's own (JSON-RPC), not a typed body. */
export function registerEndMcpGatewaySession(app: GatewayApp, deps: GatewayDeps): void {
  const handler = async (c: Parameters<RouteHandler<typeof endMcpGatewaySessionRoute, GatewayEnv>>[0]) => deps.mcp.delete(mcpHttpRequest(c, null));
  app.openapi(endMcpGatewaySessionRoute, handler as unknown as RouteHandler<typeof endMcpGatewaySessionRoute, GatewayEnv>);
}
